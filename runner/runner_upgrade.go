package runner

import (
	"context"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/release"
)

// upgradeRunner upgrades a deployment to the driver version, application
// version and values its task holds.
type upgradeRunner struct{ s *Runners }

// Run upgrades the release (recovering it first when an earlier operation
// left it pending, and installing it again when no revision of it ever
// deployed), waits for the components, then records the new values.
func (r upgradeRunner) Run(ctx context.Context, run *executor.Run) (any, error) {
	var in deployment.UpgradeInputs
	j, err := r.s.newTaskRun(ctx, run, &in)
	if err != nil {
		return nil, err
	}
	if err := j.checkOwnRelease(ctx); err != nil {
		return j.fail(ctx, err)
	}
	b, err := r.s.catalog.Bundle(ctx, j.row.DriverName, in.DriverVersion)
	if err != nil {
		return j.fail(ctx, err)
	}
	secret, err := j.openTaskSecrets()
	if err != nil {
		return j.fail(ctx, err)
	}
	values := deployment.TypedValues(b.Driver.Spec.Parameters, in.Parameters, secret.Params)
	prompts := deployment.WithSecretPrompts(in.Prompts, secret.Prompts)
	opts, err := j.render(ctx, b, in.AppVersion, values)
	if err != nil {
		return j.fail(ctx, err)
	}
	if err := j.recoverPending(ctx); err != nil {
		return j.fail(ctx, err)
	}
	if err := j.runHooks(ctx, b, drivers.HookPreUpgrade, prompts); err != nil {
		return j.fail(ctx, err)
	}
	rel, err := j.upgrade(ctx, opts, in.DriverVersion)
	if err != nil {
		return j.fail(ctx, err)
	}
	if err := j.waitReady(ctx, b.Driver.Spec.Components); err != nil {
		return j.fail(ctx, err)
	}
	if err := j.record(ctx, rel.Number, in.DriverVersion, in.AppVersion, values); err != nil {
		return nil, err
	}
	result := releaseResult{Revision: rel.Number, ChartVersion: rel.ChartVersion, AppVersion: in.AppVersion, Notes: rel.Notes}
	return j.finishHooks(ctx, b, drivers.HookPostUpgrade, prompts, result)
}

// upgrade runs the Helm step of an upgrade. A release none of whose revisions
// ever deployed (its install failed) cannot be upgraded by Helm; it is
// installed again instead.
func (j *taskRun) upgrade(ctx context.Context, opts *release.InstallOptions, driverVersion string) (*release.Release, error) {
	var rel *release.Release
	err := j.run.Step(ctx, deployment.StepHelm, "Helm upgrade of release "+j.row.Name, func(ctx context.Context, st *executor.Step) error {
		if err := j.actAs(ctx, j.row.DriverVersion, driverVersion); err != nil {
			return err
		}
		history, err := j.cluster.Releases.History(ctx, j.row.Namespace, j.row.Name)
		if err != nil && !isNotFound(err) {
			return err
		}
		if !everDeployed(history) {
			st.Say("No revision of the release ever deployed: installing it again.")
			rel, err = j.cluster.Releases.Install(ctx, *opts)
		} else {
			rel, err = j.cluster.Releases.Upgrade(ctx, release.UpgradeOptions{
				Namespace: opts.Namespace, Name: opts.Name, Owner: opts.Owner, Chart: opts.Chart, Values: opts.Values,
				Timeout: opts.Timeout, Description: opts.Description, Check: opts.Check,
			})
		}
		if err != nil {
			return err
		}
		st.SetDetail(deployment.HelmDetail{Revision: rel.Number})
		st.Say("Revision %d: %s.", rel.Number, rel.Description)
		return nil
	})
	return rel, err
}

// everDeployed reports whether any revision of a history went live.
func everDeployed(history []release.Revision) bool {
	for _, r := range history {
		if r.Status == release.StatusDeployed || r.Status == release.StatusSuperseded {
			return true
		}
	}
	return false
}

// Recover runs an upgrade again when it died before Helm started; otherwise
// it recovers the release and ends the upgrade failed.
func (r upgradeRunner) Recover(ctx context.Context, run *executor.Run) (bool, string, error) {
	return r.s.recoverRelease(ctx, run, "Review the upgrade again and confirm it to retry.")
}
