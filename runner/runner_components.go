package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/executor"
)

// componentsRunner stops components (scales their workloads to 0, keeping
// their replicas) or starts them (scales them back).
type componentsRunner struct {
	s    *Runners
	stop bool
}

// componentsResult is the result of a stop or start task.
type componentsResult struct {
	Components map[string]deployment.ComponentState `json:"components"`
}

// Run stops or starts each chosen component as one step, saving the
// components' states after each, then waits for their pods to be gone (a
// stop) or ready (a start). It scales nothing when the deployment's release
// is not its own (release.IsForeign).
func (r componentsRunner) Run(ctx context.Context, run *executor.Run) (any, error) {
	var in deployment.ComponentsInputs
	j, err := r.s.newTaskRun(ctx, run, &in)
	if err != nil {
		return nil, err
	}
	if err := j.cluster.Releases.CheckOwner(ctx, j.row.Namespace, j.row.Name, j.owner); err != nil {
		return nil, err
	}
	v, err := r.s.catalog.Spec(ctx, j.row.DriverName, j.row.DriverVersion)
	if err != nil {
		return nil, err
	}
	comps := chosenComponents(v.Driver.Spec.Components, in.Components)
	states := map[string]deployment.ComponentState{}
	if err := json.Unmarshal(j.row.Components, &states); err != nil {
		return nil, fmt.Errorf("runner: components of %s: %w", j.row.Name, err)
	}
	result := componentsResult{Components: map[string]deployment.ComponentState{}}
	for _, c := range comps {
		verb := "Start"
		if r.stop {
			verb = "Stop"
		}
		err := run.Step(ctx, deployment.StepComponent, verb+" "+deployment.ComponentTitle(c), func(ctx context.Context, st *executor.Step) error {
			state, err := r.apply(ctx, j, c, states[c.Name])
			if err != nil {
				return err
			}
			states[c.Name], result.Components[c.Name] = state, state
			st.SetDetail(deployment.ComponentDetail{Workloads: state.Workloads})
			st.Say("%s.", describeWorkloads(state, r.stop))
			return r.s.saveStates(ctx, j.row.ID, states)
		})
		if err != nil {
			return result, err
		}
	}
	if r.stop {
		return result, j.waitStopped(ctx, comps)
	}
	return result, j.waitReady(ctx, comps)
}

// apply stops or starts one component and returns its new state. Stopping a
// stopped component keeps the replicas remembered at its first stop.
func (r componentsRunner) apply(ctx context.Context, j *taskRun, c drivers.Component, state deployment.ComponentState) (deployment.ComponentState, error) {
	if r.stop {
		before, err := j.cluster.Kube.ScaleComponent(ctx, j.row.Namespace, j.row.Name, c, 0)
		if err != nil {
			return state, err
		}
		if !state.Stopped {
			state.Workloads = before
		}
		state.Stopped = true
		return state, nil
	}
	started, err := j.cluster.Kube.StartComponent(ctx, j.row.Namespace, j.row.Name, c, state.Workloads)
	if err != nil {
		return state, err
	}
	return deployment.ComponentState{Workloads: started}, nil
}

// saveStates records the components' states on the deployment.
func (s *Runners) saveStates(ctx context.Context, deploymentID int64, states map[string]deployment.ComponentState) error {
	out, err := json.Marshal(states)
	if err != nil {
		return fmt.Errorf("runner: encode component states: %w", err)
	}
	return s.q.SetDeploymentComponents(ctx, db.SetDeploymentComponentsParams{ID: deploymentID, Components: out})
}

// describeWorkloads says what a stop or start did.
func describeWorkloads(state deployment.ComponentState, stopped bool) string {
	text := ""
	for i, w := range state.Workloads {
		if i > 0 {
			text += ", "
		}
		if stopped {
			text += fmt.Sprintf("%s %s scaled to 0 (had %d)", w.Kind, w.Name, w.Replicas)
		} else {
			text += fmt.Sprintf("%s %s scaled to %d", w.Kind, w.Name, w.Replicas)
		}
	}
	return text
}

// chosenComponents are the components named, in declaration order; all when none is named.
func chosenComponents(all []drivers.Component, names []string) []drivers.Component {
	if len(names) == 0 {
		return all
	}
	var out []drivers.Component
	for _, c := range all {
		if slices.Contains(names, c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// Recover runs a stop or start again: scaling to the same replicas twice
// changes nothing more.
func (r componentsRunner) Recover(ctx context.Context, run *executor.Run) (bool, string, error) {
	return true, "Scaling is safe to repeat, so the task runs again.", nil
}
