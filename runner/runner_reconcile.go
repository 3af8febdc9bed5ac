package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/release"
)

// reconcileRunner re-applies a deployment's release as it is: a Helm
// upgrade with its last revision's own chart and values, holding stopped
// components at 0 replicas. It runs no driver hook: nothing changes but what
// was changed behind Helm's back.
type reconcileRunner struct{ s *Runners }

// reconcileResult is the result of a reconcile: the revision it made and the
// drift read once it ended.
type reconcileResult struct {
	releaseResult
	// Drift is the drift word read after the reconcile (deployment.DriftSynced, ...).
	Drift string `json:"drift"`
}

// Run re-applies the release (recovering it first when an earlier operation
// left it pending) as the namespace's deployer, with the driver version's
// permission check, waits for the running components, records the new
// revision with the deployment's values, forgets the accepted drift and
// reads the drift again.
func (r reconcileRunner) Run(ctx context.Context, run *executor.Run) (any, error) {
	var in deployment.ReconcileInputs
	j, err := r.s.newTaskRun(ctx, run, &in)
	if err != nil {
		return nil, err
	}
	if err := j.checkOwnRelease(ctx); err != nil {
		return j.fail(ctx, err)
	}
	v, err := r.s.catalog.Spec(ctx, j.row.DriverName, j.row.DriverVersion)
	if err != nil {
		return j.fail(ctx, err)
	}
	values, err := r.s.deployments.StoredValues(v.Driver.Spec.Parameters, j.row.Parameters, j.row.Secrets, deployment.DeploymentSecretsAt(j.row.ID))
	if err != nil {
		return j.fail(ctx, err)
	}
	check, err := r.s.deployments.PermissionCheck(ctx, j.row.DriverName, j.row.DriverVersion, j.row.Namespace)
	if err != nil {
		return j.fail(ctx, err)
	}
	states := map[string]deployment.ComponentState{}
	if err := json.Unmarshal(j.row.Components, &states); err != nil {
		return nil, fmt.Errorf("runner: components of %s: %w", j.row.Name, err)
	}
	if err := j.recoverPending(ctx); err != nil {
		return j.fail(ctx, err)
	}
	rel, err := j.reapply(ctx, check, states)
	if err != nil {
		return j.fail(ctx, err)
	}
	if err := j.waitReady(ctx, runningComponents(v.Driver.Spec.Components, states)); err != nil {
		return j.fail(ctx, err)
	}
	if err := j.record(ctx, rel.Number, j.row.DriverVersion, j.row.AppVersion, values); err != nil {
		return nil, err
	}
	err = j.run.Write(context.WithoutCancel(ctx), "forget the accepted drift", func(ctx context.Context, q *db.Queries) error {
		return q.DeleteDriftAcceptances(ctx, j.row.ID)
	})
	if err != nil {
		return nil, fmt.Errorf("runner: forget the accepted drift of %s: %w", j.row.Name, err)
	}
	result := reconcileResult{releaseResult: releaseResult{Revision: rel.Number, ChartVersion: rel.ChartVersion, AppVersion: j.row.AppVersion}}
	dr, err := r.s.deployments.CheckDriftNow(ctx, j.row.Name)
	if err != nil {
		return nil, err
	}
	result.Drift = dr.Word
	return result, nil
}

// reapply runs the Helm step of a reconcile.
func (j *taskRun) reapply(ctx context.Context, check release.Check, states map[string]deployment.ComponentState) (*release.Release, error) {
	var hold []release.Held
	for _, w := range deployment.StoppedWorkloads(states) {
		hold = append(hold, release.Held{Kind: w.Kind, Name: w.Name})
	}
	var rel *release.Release
	err := j.run.Step(ctx, deployment.StepHelm, "Helm upgrade of release "+j.row.Name+" with its own chart and values", func(ctx context.Context, st *executor.Step) error {
		if err := j.actAs(ctx, j.row.DriverVersion); err != nil {
			return err
		}
		var err error
		rel, err = j.cluster.Releases.Reapply(ctx, release.UpgradeOptions{Namespace: j.row.Namespace, Name: j.row.Name, Owner: j.owner,
			Timeout: HelmTimeout, Description: fmt.Sprintf("reconcile by Styrmin (task %d)", j.run.Task.ID), Check: check, Hold: hold})
		if err != nil {
			return err
		}
		st.SetDetail(deployment.HelmDetail{Revision: rel.Number})
		st.Say("Revision %d re-applies revision %d as it was; %d workloads of stopped components held at 0 replicas.", rel.Number, rel.Number-1, len(hold))
		return nil
	})
	return rel, err
}

// runningComponents are the components that are not stopped, in declaration order.
func runningComponents(all []drivers.Component, states map[string]deployment.ComponentState) []drivers.Component {
	var out []drivers.Component
	for _, c := range all {
		if !states[c.Name].Stopped {
			out = append(out, c)
		}
	}
	return out
}

// Recover runs a reconcile again when it died before Helm started; otherwise
// it recovers the release and ends the reconcile failed.
func (r reconcileRunner) Recover(ctx context.Context, run *executor.Run) (bool, string, error) {
	return r.s.recoverRelease(ctx, run, "Reconcile again.")
}
