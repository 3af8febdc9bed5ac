package deployment

import (
	"context"
	"fmt"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/secrets"
)

// SealedColumns are the deployments', revisions' and tasks' sealed columns
// for secrets.Box.ResealAll: their values not sealed under the key of
// header, a page at a time.
func SealedColumns(q *db.Queries, header []byte) []secrets.SealedColumn {
	deployments := secrets.PagedColumn(func(ctx context.Context, after db.ListDeploymentSecretsNotUnderRow) ([]db.ListDeploymentSecretsNotUnderRow, error) {
		return q.ListDeploymentSecretsNotUnder(ctx, db.ListDeploymentSecretsNotUnderParams{Header: header, After: after.ID, Page: secrets.ResealPage})
	}, func(r db.ListDeploymentSecretsNotUnderRow) secrets.SealedValue {
		return secrets.SealedValue{At: DeploymentSecretsAt(r.ID), Sealed: r.Secrets, Replace: func(ctx context.Context, resealed []byte) (int64, error) {
			return q.ResealDeploymentSecrets(ctx, db.ResealDeploymentSecretsParams{ID: r.ID, Old: r.Secrets, New: resealed})
		}}
	})
	revisions := secrets.PagedColumn(func(ctx context.Context, after db.ListRevisionSecretsNotUnderRow) ([]db.ListRevisionSecretsNotUnderRow, error) {
		return q.ListRevisionSecretsNotUnder(ctx, db.ListRevisionSecretsNotUnderParams{
			Header: header, AfterDeploymentID: after.DeploymentID, AfterRevision: after.Revision, Page: secrets.ResealPage})
	}, func(r db.ListRevisionSecretsNotUnderRow) secrets.SealedValue {
		return secrets.SealedValue{At: RevisionSecretsAt(r.DeploymentID, r.Revision), Sealed: r.Secrets, Replace: func(ctx context.Context, resealed []byte) (int64, error) {
			return q.ResealRevisionSecrets(ctx, db.ResealRevisionSecretsParams{DeploymentID: r.DeploymentID, Revision: r.Revision, Old: r.Secrets, New: resealed})
		}}
	})
	tasks := secrets.PagedColumn(func(ctx context.Context, after db.ListTaskSecretsNotUnderRow) ([]db.ListTaskSecretsNotUnderRow, error) {
		return q.ListTaskSecretsNotUnder(ctx, db.ListTaskSecretsNotUnderParams{Header: header, After: after.ID, Page: secrets.ResealPage})
	}, func(r db.ListTaskSecretsNotUnderRow) secrets.SealedValue {
		return secrets.SealedValue{At: TaskSecretsAt(r.ID, r.DeploymentID), Sealed: r.SecretInputs, Replace: func(ctx context.Context, resealed []byte) (int64, error) {
			return q.ResealTaskSecrets(ctx, db.ResealTaskSecretsParams{ID: r.ID, Old: r.SecretInputs, New: resealed})
		}}
	})
	return []secrets.SealedColumn{deployments, revisions, tasks}
}

// RecordSecretNames records which secret parameters are set for the
// deployments whose secrets were sealed before deployments.secret_names
// existed, opening their secrets this once.
func RecordSecretNames(ctx context.Context, q *db.Queries, box *secrets.Box) error {
	rows, err := q.ListDeploymentsWithoutSecretNames(ctx)
	if err != nil {
		return fmt.Errorf("deployment: list deployments without secret names: %w", err)
	}
	for _, r := range rows {
		values, err := box.OpenValues(r.Secrets, DeploymentSecretsAt(r.ID))
		if err != nil {
			return fmt.Errorf("deployment: open the secrets of deployment %d: %w", r.ID, err)
		}
		if err := q.SetDeploymentSecretNames(ctx, db.SetDeploymentSecretNamesParams{ID: r.ID, Secrets: r.Secrets, SecretNames: SecretNames(values)}); err != nil {
			return fmt.Errorf("deployment: record the secret names of deployment %d: %w", r.ID, err)
		}
	}
	return nil
}
