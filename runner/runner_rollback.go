package runner

import (
	"context"
	"fmt"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/release"
)

// rollbackRunner rolls a deployment back to an earlier revision, with the
// versions and values recorded for it.
type rollbackRunner struct{ s *Runners }

// Run rolls the release back (recovering it first when an earlier operation
// left it pending), waits for the components, and records the new revision
// with the old one's values.
func (r rollbackRunner) Run(ctx context.Context, run *executor.Run) (any, error) {
	var in deployment.RollbackInputs
	j, err := r.s.newTaskRun(ctx, run, &in)
	if err != nil {
		return nil, err
	}
	rev, err := r.s.q.GetRevision(ctx, db.GetRevisionParams{DeploymentID: j.row.ID, Revision: int32(in.Revision)})
	if err != nil {
		return j.fail(ctx, fmt.Errorf("runner: revision %d of %s: %w", in.Revision, j.row.Name, err))
	}
	b, err := r.s.catalog.Bundle(ctx, j.row.DriverName, rev.DriverVersion)
	if err != nil {
		return j.fail(ctx, err)
	}
	values, err := r.s.deployments.StoredValues(b.Driver.Spec.Parameters, rev.Parameters, rev.Secrets, deployment.RevisionSecretsAt(rev.DeploymentID, rev.Revision))
	if err != nil {
		return j.fail(ctx, err)
	}
	check, err := r.s.deployments.PermissionCheck(ctx, j.row.DriverName, rev.DriverVersion, j.row.Namespace)
	if err != nil {
		return j.fail(ctx, err)
	}
	if err := j.recoverPending(ctx); err != nil {
		return j.fail(ctx, err)
	}
	var rel *release.Release
	err = run.Step(ctx, deployment.StepHelm, fmt.Sprintf("Helm rollback of release %s to revision %d", j.row.Name, in.Revision), func(ctx context.Context, st *executor.Step) error {
		if err := j.actAs(ctx, j.row.DriverVersion, rev.DriverVersion); err != nil {
			return err
		}
		var err error
		rel, err = j.cluster.Releases.Rollback(ctx, release.RollbackOptions{Namespace: j.row.Namespace, Name: j.row.Name, Owner: j.owner, Revision: in.Revision, Timeout: HelmTimeout, Check: check})
		if err != nil {
			return err
		}
		st.SetDetail(deployment.HelmDetail{Revision: rel.Number})
		st.Say("Revision %d restores revision %d (driver %s, application %s).", rel.Number, in.Revision, rev.DriverVersion, rev.AppVersion)
		return nil
	})
	if err != nil {
		return j.fail(ctx, err)
	}
	if err := j.waitReady(ctx, b.Driver.Spec.Components); err != nil {
		return j.fail(ctx, err)
	}
	if err := j.record(ctx, rel.Number, rev.DriverVersion, rev.AppVersion, values); err != nil {
		return nil, err
	}
	return releaseResult{Revision: rel.Number, ChartVersion: rel.ChartVersion, AppVersion: rev.AppVersion}, nil
}

// Recover runs a rollback again when it died before Helm started; otherwise
// it recovers the release and ends the rollback failed.
func (r rollbackRunner) Recover(ctx context.Context, run *executor.Run) (bool, string, error) {
	return r.s.recoverRelease(ctx, run, "Roll back again from the revision history.")
}
