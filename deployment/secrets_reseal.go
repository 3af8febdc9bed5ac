package deployment

import (
	"context"
	"fmt"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/secrets"
)

// SealedValue is one stored sealed value, where it is and how to replace it.
type SealedValue struct {
	At     secrets.Place
	Sealed []byte
	// Replace stores resealed instead of Sealed, unless the value changed
	// since it was read; it returns how many rows it changed.
	Replace func(ctx context.Context, resealed []byte) (int64, error)
}

// SealedColumn returns the next page of a column's values not sealed under
// the current key, and none once the column is done.
type SealedColumn func(ctx context.Context) ([]SealedValue, error)

// ResealPage is how many values a SealedColumn returns at a time.
const ResealPage = 100

// ResealSecrets seals every secret of deployments, revisions and tasks (and
// of the more columns other packages own, such as webhooks') again under
// box's current key, opening each with the key it names (box's
// previous keys), and returns how many it re-sealed. Each value is replaced
// on its own, only if unchanged since it was read: an interrupted run leaves
// every value sealed under the old or the new key, which a box with both
// opens, and running it again finishes the work. It fails, naming the count,
// when values remain under another key (a server still sealing with it).
func ResealSecrets(ctx context.Context, q *db.Queries, box *secrets.Box, more ...SealedColumn) (int, error) {
	header := box.Header()
	total := 0
	columns := append([]SealedColumn{deploymentSecretsColumn(q, header), revisionSecretsColumn(q, header), taskSecretsColumn(q, header)}, more...)
	for _, column := range columns {
		n, err := resealColumn(ctx, box, column)
		total += n
		if err != nil {
			return total, err
		}
	}
	left, err := q.CountSecretsNotUnder(ctx, header)
	if err != nil {
		return total, fmt.Errorf("deployment: count the secrets left to re-seal: %w", err)
	}
	if left > 0 {
		return total, styrmin.Errorf(styrmin.ECONFLICT, "%d secrets are still sealed under another key than %s: a server or worker still seals with the old key; restart them all with the new key as STYRMIN_SECRET_KEY and the old one in STYRMIN_PREVIOUS_SECRET_KEYS, then rotate again", left, box.KeyID())
	}
	return total, nil
}

// resealColumn re-seals every value of column under box's current key.
func resealColumn(ctx context.Context, box *secrets.Box, column SealedColumn) (int, error) {
	n := 0
	for {
		page, err := column(ctx)
		if err != nil {
			return n, fmt.Errorf("deployment: list secrets to re-seal: %w", err)
		}
		if len(page) == 0 {
			return n, nil
		}
		for _, v := range page {
			resealed, err := box.Reseal(v.Sealed, v.At)
			if err != nil {
				return n, fmt.Errorf("deployment: re-seal %s: %w", v.At, err)
			}
			changed, err := v.Replace(ctx, resealed)
			if err != nil {
				return n, fmt.Errorf("deployment: re-seal %s: %w", v.At, err)
			}
			n += int(changed)
		}
	}
}

// deploymentSecretsColumn is deployments.secrets, by id.
func deploymentSecretsColumn(q *db.Queries, header []byte) SealedColumn {
	var after int64
	return func(ctx context.Context) ([]SealedValue, error) {
		rows, err := q.ListDeploymentSecretsNotUnder(ctx, db.ListDeploymentSecretsNotUnderParams{Header: header, After: after, Page: ResealPage})
		out := make([]SealedValue, len(rows))
		for i, r := range rows {
			out[i] = SealedValue{At: deploymentSecretsAt(r.ID), Sealed: r.Secrets, Replace: func(ctx context.Context, resealed []byte) (int64, error) {
				return q.ResealDeploymentSecrets(ctx, db.ResealDeploymentSecretsParams{ID: r.ID, Old: r.Secrets, New: resealed})
			}}
			after = r.ID
		}
		return out, err
	}
}

// revisionSecretsColumn is revisions.secrets, by deployment and revision.
func revisionSecretsColumn(q *db.Queries, header []byte) SealedColumn {
	var afterDeployment int64
	var afterRevision int32
	return func(ctx context.Context) ([]SealedValue, error) {
		rows, err := q.ListRevisionSecretsNotUnder(ctx, db.ListRevisionSecretsNotUnderParams{
			Header: header, AfterDeploymentID: afterDeployment, AfterRevision: afterRevision, Page: ResealPage})
		out := make([]SealedValue, len(rows))
		for i, r := range rows {
			out[i] = SealedValue{At: revisionSecretsAt(r.DeploymentID, r.Revision), Sealed: r.Secrets, Replace: func(ctx context.Context, resealed []byte) (int64, error) {
				return q.ResealRevisionSecrets(ctx, db.ResealRevisionSecretsParams{DeploymentID: r.DeploymentID, Revision: r.Revision, Old: r.Secrets, New: resealed})
			}}
			afterDeployment, afterRevision = r.DeploymentID, r.Revision
		}
		return out, err
	}
}

// taskSecretsColumn is tasks.secret_inputs, by id.
func taskSecretsColumn(q *db.Queries, header []byte) SealedColumn {
	var after int64
	return func(ctx context.Context) ([]SealedValue, error) {
		rows, err := q.ListTaskSecretsNotUnder(ctx, db.ListTaskSecretsNotUnderParams{Header: header, After: after, Page: ResealPage})
		out := make([]SealedValue, len(rows))
		for i, r := range rows {
			out[i] = SealedValue{At: taskSecretsAt(r.ID, r.DeploymentID), Sealed: r.SecretInputs, Replace: func(ctx context.Context, resealed []byte) (int64, error) {
				return q.ResealTaskSecrets(ctx, db.ResealTaskSecretsParams{ID: r.ID, Old: r.SecretInputs, New: resealed})
			}}
			after = r.ID
		}
		return out, err
	}
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
		values, err := box.OpenValues(r.Secrets, deploymentSecretsAt(r.ID))
		if err != nil {
			return fmt.Errorf("deployment: open the secrets of deployment %d: %w", r.ID, err)
		}
		if err := q.SetDeploymentSecretNames(ctx, db.SetDeploymentSecretNamesParams{ID: r.ID, Secrets: r.Secrets, SecretNames: secretNames(values)}); err != nil {
			return fmt.Errorf("deployment: record the secret names of deployment %d: %w", r.ID, err)
		}
	}
	return nil
}
