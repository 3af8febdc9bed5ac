package api

import (
	"cmp"
	"context"
	"fmt"
	"github.com/styrmin/styrmin/handlers/httpx"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/health"
	"github.com/styrmin/styrmin/kube"
)

// The API's reads of deployments: the same service as the deployment pages.

// listCursor is a cursor of the deployments list: the place of the
// previous page's last one (deployment.ListKey), or with Before of the
// next page's first one.
type listCursor struct {
	deployment.ListKey
	Before bool `json:"before,omitempty"`
}

// ListDeployments lists the deployments that its filters keep, live ones
// by name, then with include_deleted the deleted ones, a page at a time
// forwards or backwards (listCursor).
func (s *Server) ListDeployments(ctx context.Context, req oapi.ListDeploymentsRequestObject) (oapi.ListDeploymentsResponseObject, error) {
	p := req.Params
	o := deployment.ListOptions{IncludeDeleted: p.IncludeDeleted != nil && *p.IncludeDeleted, Limit: pageLimit(p.Limit), Filter: deployment.ListFilter{
		Query: optional(p.Q), Driver: optional(p.Driver), Namespace: optional(p.Namespace), Health: health.Word(optional(p.Health)), Drifted: p.Drifted,
	}}
	var err error
	if o.Teams, err = s.Teams.Visible(ctx, httpx.APIUser(ctx)); err != nil {
		return nil, err
	}
	if c := p.Cursor; c != nil && *c != "" {
		var at listCursor
		if err := decodeCursor(c, &at); err != nil {
			return nil, err
		}
		if at.Before {
			o.Before = &at.ListKey
		} else {
			o.After = &at.ListKey
		}
	}
	page, err := s.Deployments.List(ctx, o)
	if err != nil {
		return nil, err
	}
	out := oapi.ListDeployments200JSONResponse{Items: make([]oapi.DeploymentSummary, 0, len(page.Items))}
	if page.Next != nil {
		out.NextCursor = encodeCursor(listCursor{ListKey: *page.Next})
	}
	if page.Prev != nil {
		out.PrevCursor = encodeCursor(listCursor{ListKey: *page.Prev, Before: true})
	}
	for _, d := range page.Items {
		last := apiTaskSummaryOf(d.LastTask)
		sum := apiDeploymentSummaryOf(&d.Deployment, &last)
		sum.Health = apiHealthOf(d.Health)
		if d.Drift != nil {
			word := oapi.DriftWord(d.Drift.Word)
			sum.Drift = &word
		}
		sum.UpdateAvailable = nonEmpty(d.UpdateAvailable)
		out.Items = append(out.Items, sum)
	}
	return out, nil
}

// GetDeployment shows a deployment with what the cluster runs now; a
// cluster that cannot be read is said in cluster_error, never as an error.
func (s *Server) GetDeployment(ctx context.Context, req oapi.GetDeploymentRequestObject) (oapi.GetDeploymentResponseObject, error) {
	v, err := s.Deployments.View(ctx, req.Name, deployment.ViewOptions{Tasks: 1})
	if err != nil {
		return nil, err
	}
	d, live := v.Deployment, v.Live
	var last *oapi.TaskSummary
	if len(v.Tasks) > 0 {
		t := v.Tasks[0]
		sum := apiTaskSummaryOf(deployment.TaskSummary{ID: t.ID, Kind: t.Kind, Status: t.Status, By: t.By, CreatedAt: t.CreatedAt})
		last = &sum
	}
	sum := apiDeploymentSummaryOf(d, last)
	out := oapi.GetDeployment200JSONResponse{
		Name: sum.Name, Namespace: sum.Namespace, Driver: sum.Driver, DriverVersion: sum.DriverVersion,
		AppVersion: sum.AppVersion, Status: sum.Status, Busy: sum.Busy, CreatedBy: sum.CreatedBy,
		CreatedAt: sum.CreatedAt, UpdatedAt: sum.UpdatedAt, DeletedAt: sum.DeletedAt, LastTask: sum.LastTask, Team: sum.Team,
		Parameters: d.Parameters, SecretsSet: d.SecretsSet, Components: apiComponentsOf(v.Components),
		Revisions: make([]oapi.Revision, 0, len(live.History)), UpdateAvailable: nonEmpty(v.UpdateAvailable),
	}
	if out.Parameters == nil {
		out.Parameters = map[string]any{}
	}
	if out.SecretsSet == nil {
		out.SecretsSet = []string{}
	}
	if live.Err != "" {
		out.ClusterError = &live.Err
	}
	if live.ReleaseMissing != "" {
		out.ReleaseMissing = &live.ReleaseMissing
	}
	addLiveHealth(&out, live.Health)
	if len(live.ImageSubstitutions) > 0 {
		subs := apiImageSubstitutionsOf(live.ImageSubstitutions)
		out.ImageSubstitutions = &subs
	}
	for _, r := range live.History {
		rev := oapi.Revision{Revision: r.Number, Status: string(r.Status), DriverVersion: r.DriverVersion,
			AppVersion: cmp.Or(r.AppVersion, r.Revision.AppVersion), UpdatedAt: r.Updated}
		if r.Description != "" {
			rev.Description = &r.Description
		}
		out.Revisions = append(out.Revisions, rev)
	}
	return out, nil
}

// apiComponentsOf are a deployment's components, whether they are stopped
// and, for those the cluster reported, their readiness (ready/desired pods
// of their workloads).
func apiComponentsOf(components []deployment.ComponentView) map[string]oapi.ComponentState {
	out := make(map[string]oapi.ComponentState, len(components))
	for _, c := range components {
		state := oapi.ComponentState{Stopped: c.Stopped}
		if c.Reported {
			var desired, ready int32
			for _, w := range c.Workloads {
				desired += w.Replicas
				ready += w.ReadyReplicas
			}
			readiness := fmt.Sprintf("%d/%d", ready, desired)
			state.Ready, state.Workloads = &readiness, apiWorkloadsOf(c.Workloads)
		}
		out[c.Name] = state
	}
	return out
}

// apiImageSubstitutionsOf are the local cluster's image substitutions as
// the API shows them.
func apiImageSubstitutionsOf(subs []kube.ImageSubstitution) []oapi.ImageSubstitution {
	out := make([]oapi.ImageSubstitution, 0, len(subs))
	for _, s := range subs {
		sub := oapi.ImageSubstitution{Requested: s.Requested, Runs: s.Runs}
		if !s.Missing() {
			sub.Image = &s.Image
		}
		out = append(out, sub)
	}
	return out
}

// apiDeploymentSummaryOf is a deployment as the API's list shows it.
func apiDeploymentSummaryOf(d *deployment.Deployment, last *oapi.TaskSummary) oapi.DeploymentSummary {
	return oapi.DeploymentSummary{
		Name: d.Name, Namespace: d.Namespace, Driver: d.Driver, DriverVersion: d.DriverVersion,
		AppVersion: d.AppVersion, Status: string(d.Status), Busy: d.Busy, CreatedBy: d.CreatedBy,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, DeletedAt: d.DeletedAt, LastTask: last, Team: d.Team,
	}
}

// apiTaskSummaryOf names a task as the API does, without its steps.
func apiTaskSummaryOf(t deployment.TaskSummary) oapi.TaskSummary {
	return oapi.TaskSummary{Id: t.ID, Kind: oapi.TaskKind(t.Kind), Status: oapi.TaskStatus(t.Status), By: t.By, CreatedAt: t.CreatedAt}
}
