package runner

import (
	"context"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/release"
)

// installRunner installs a deployment: namespace (and its deployer),
// values, Helm install, then a wait for each component. It runs no hook and
// installs nothing when a release of the deployment's name exists that is
// not its own.
type installRunner struct{ s *Runners }

// Run installs the deployment as its install task says.
func (r installRunner) Run(ctx context.Context, run *executor.Run) (any, error) {
	var in deployment.InstallInputs
	j, err := r.s.newTaskRun(ctx, run, &in)
	if err != nil {
		return nil, err
	}
	err = run.Step(ctx, deployment.StepNamespace, "Namespace "+j.row.Namespace, func(ctx context.Context, st *executor.Step) error {
		policy, why, err := r.s.deployments.NamespaceRefusal(ctx, j.row.Namespace, j.row.TeamID)
		if err != nil {
			return err
		}
		if why != "" { // the policy changed since the install was queued
			return styrmin.Errorf(styrmin.EINVALID, "The namespace policy refuses this install: %s.", why)
		}
		created, err := j.cluster.Kube.EnsureNamespace(ctx, j.row.Namespace, policy.CreateNamespaces, j.cluster.NamespaceLabels())
		if err != nil {
			return err
		}
		if created {
			st.Say("Created, labelled app.kubernetes.io/managed-by=styrmin, with Pod Security's levels; deleting the deployment removes it when nothing else is left in it.")
			if err := r.s.q.SetNamespaceCreated(ctx, j.row.ID); err != nil {
				return err
			}
		} else {
			st.Say("The namespace exists; deleting this deployment leaves it, unless Styrmin created it for a deployment in it deleted before this one.")
		}
		// Everything the task does in the namespace from here on, reading
		// Helm's records included, acts as its deployer.
		return j.actAs(ctx)
	})
	if err != nil {
		return j.fail(ctx, err)
	}
	if err := j.checkOwnRelease(ctx); err != nil {
		return j.fail(ctx, err)
	}
	b, err := r.s.catalog.Bundle(ctx, j.row.DriverName, in.DriverVersion)
	if err != nil {
		return j.fail(ctx, err)
	}
	values, err := r.s.deployments.StoredValues(b.Driver.Spec.Parameters, j.row.Parameters, j.row.Secrets, deployment.DeploymentSecretsAt(j.row.ID))
	if err != nil {
		return j.fail(ctx, err)
	}
	opts, err := j.render(ctx, b, in.AppVersion, values)
	if err != nil {
		return j.fail(ctx, err)
	}
	secret, err := j.openTaskSecrets()
	if err != nil {
		return j.fail(ctx, err)
	}
	prompts := deployment.WithSecretPrompts(in.Prompts, secret.Prompts)
	if err := j.runHooks(ctx, b, drivers.HookPreInstall, prompts); err != nil {
		return j.fail(ctx, err)
	}
	var rel *release.Release
	err = run.Step(ctx, deployment.StepHelm, "Helm install of release "+j.row.Name, func(ctx context.Context, st *executor.Step) error {
		if err := j.actAs(ctx, in.DriverVersion); err != nil {
			return err
		}
		var err error
		if rel, err = j.cluster.Releases.Install(ctx, *opts); err != nil {
			return err
		}
		st.SetDetail(deployment.HelmDetail{Revision: rel.Number})
		st.Say("Revision %d: %s.", rel.Number, rel.Description)
		return nil
	})
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
	return j.finishHooks(ctx, b, drivers.HookPostInstall, prompts, result)
}

// Recover runs an install again when it died before Helm started; otherwise
// it recovers the release and ends the install failed.
func (r installRunner) Recover(ctx context.Context, run *executor.Run) (bool, string, error) {
	return r.s.recoverRelease(ctx, run, "Upgrade the deployment to finish installing it, or delete it.")
}
