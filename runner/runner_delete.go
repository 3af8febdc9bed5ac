package runner

import (
	"context"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release"
)

// deleteRunner uninstalls a deployment and removes the namespace Styrmin
// created for it when nothing else is left in it; the deployment stays in the
// history as deleted.
type deleteRunner struct{ s *Runners }

// Run uninstalls the release, deletes the action Job an action left (with
// its Secret) and the action pods' service account, deletes the namespace when Styrmin created it and nothing
// else is left in it (removeNamespace), and marks the deployment deleted. When a release of the deployment's name is not its
// own (its install was refused), it changes nothing in the cluster: it only
// marks the deployment deleted.
func (r deleteRunner) Run(ctx context.Context, run *executor.Run) (any, error) {
	var in deployment.DeleteInputs
	j, err := r.s.newTaskRun(ctx, run, &in)
	if err != nil {
		return nil, err
	}
	if err := r.s.q.SetDeploymentStatus(ctx, db.SetDeploymentStatusParams{ID: j.row.ID, Status: deployment.StatusDeleting}); err != nil {
		return nil, err
	}
	foreign, err := j.releaseForeign(ctx)
	if err != nil {
		return j.fail(ctx, err)
	}
	if !foreign {
		if err := r.removeFromCluster(ctx, j, &in); err != nil {
			return j.fail(ctx, err)
		}
	}
	if err := r.s.q.MarkDeploymentDeleted(ctx, j.row.ID); err != nil {
		return nil, err
	}
	linked, err := j.linked(ctx)
	return map[string]any{"linked": linked}, err
}

// releaseForeign reports, as a step when so, whether a release of the
// deployment's name exists that is not the deployment's own: then Styrmin
// must leave the cluster as it is.
func (j *taskRun) releaseForeign(ctx context.Context) (bool, error) {
	err := j.checkOwnRelease(ctx)
	if err == nil || !release.IsForeign(err) {
		return false, err
	}
	err = j.run.Step(ctx, deployment.StepHelm, "Leave release "+j.row.Name+" in place", func(ctx context.Context, st *executor.Step) error {
		st.Warn("Release %s in namespace %s was not created by Styrmin for this deployment: Styrmin leaves it, its objects and the namespace as they are, runs no hook, and only forgets the deployment.", j.row.Name, j.row.Namespace)
		return nil
	})
	return true, err
}

// removeFromCluster runs the pre-delete hooks, uninstalls the release, runs
// the post-delete hooks, deletes the action Job and the action pods' service
// account and, when Styrmin created the namespace and nothing else is left
// in it, the namespace.
func (r deleteRunner) removeFromCluster(ctx context.Context, j *taskRun, in *deployment.DeleteInputs) error {
	b, err := r.s.catalog.Bundle(ctx, j.row.DriverName, j.row.DriverVersion)
	if err != nil {
		return err
	}
	secret, err := j.openTaskSecrets()
	if err != nil {
		return err
	}
	prompts := deployment.WithSecretPrompts(in.Prompts, secret.Prompts)
	if err := j.runHooks(ctx, b, drivers.HookPreDelete, prompts); err != nil {
		return err
	}
	err = j.run.Step(ctx, deployment.StepHelm, "Helm uninstall of release "+j.row.Name, func(ctx context.Context, st *executor.Step) error {
		if err := j.actAs(ctx, j.row.DriverVersion); err != nil {
			return err
		}
		res, err := j.cluster.Releases.Uninstall(ctx, release.UninstallOptions{Namespace: j.row.Namespace, Name: j.row.Name, Owner: j.owner,
			Wait: true, Timeout: HelmTimeout, IgnoreNotFound: true})
		if err != nil {
			return err
		}
		if err := j.cluster.RevokeDeployer(ctx, j.row.Namespace, j.row.Name); err != nil {
			return err
		}
		st.Say("Uninstalled; what an admin approved for it is no longer granted.")
		if res.Kept != "" {
			st.Warn("Helm kept these resources (helm.sh/resource-policy: keep): %s", res.Kept)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := j.runHooks(ctx, b, drivers.HookPostDelete, prompts); err != nil {
		return err
	}
	err = j.run.Step(ctx, deployment.StepJob, "Delete the Job of the driver's actions", func(ctx context.Context, st *executor.Step) error {
		if err := j.cluster.Kube.DeleteActionJob(ctx, j.row.Namespace, j.row.Name); err != nil {
			return err
		}
		// A deployment made again under this name (another id) creates its own.
		if err := actions.DeleteServiceAccount(ctx, j.cluster.Kube.Clientset, j.row.Namespace, j.row.Name, j.owner.Labels()); err != nil {
			return err
		}
		st.Say("The Job %s, its pods and its Secret, and the service account %s of the action pods are gone, if actions had left them.",
			kube.ActionJobName(j.row.Name), actions.ServiceAccountName(j.row.Name))
		return nil
	})
	if err != nil || !j.row.NamespaceCreated {
		return err
	}
	return j.removeNamespace(ctx)
}

// Recover runs a delete again: uninstalling a release that is gone and
// deleting a namespace that is gone both succeed.
func (r deleteRunner) Recover(ctx context.Context, run *executor.Run) (bool, string, error) {
	return true, "Deleting is safe to repeat, so the task runs again.", nil
}
