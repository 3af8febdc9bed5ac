package web

import (
	"cmp"
	"context"
	"maps"
	"net/http"
	"reflect"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/lru"
	"github.com/styrmin/styrmin/teams"
	"github.com/styrmin/styrmin/views"
)

// DeploymentShow shows a deployment: its status, what the cluster runs, its
// parameters (secrets masked), its Helm revisions and its newest tasks, which
// update live while they run; the ended ones after the newest few have their
// steps folded (TaskSteps opens them), and the schedules of its manual
// actions (secret prompts never shown) with the artefacts their runs
// produced. forms keeps the manual actions' forms
// of driver versions; simulated says the cluster's pods are simulated (the
// local development cluster).
func DeploymentShow(svc deploymentReader, schedules Schedules, forms *ActionForms, simulated bool, md *views.Markdown, allTeams teamLister) echo.HandlerFunc {
	return func(c echo.Context) error {
		pick := unfolded(unfoldedTasks)
		v, err := svc.View(c.Request().Context(), c.Param("name"), deployment.ViewOptions{WithSteps: pick})
		if err != nil {
			return err
		}
		props := deploymentShowProps(v)
		foldSteps(props.Tasks, v.Tasks, pick)
		if v.DeletedAt == nil {
			if props.Actions, err = manualActionForms(forms, md, v.Spec); err != nil {
				return err
			}
		}
		list, err := schedules.List(c.Request().Context(), v.Name)
		if err != nil {
			return err
		}
		props.Schedules = scheduleRows(list)
		artefacts, err := svc.Artefacts(c.Request().Context(), v.Name)
		if err != nil {
			return err
		}
		props.Artefacts = artefactsProps(artefacts)
		props.SimulatedCluster = simulated && v.DeletedAt == nil
		if props.MoveTo, err = moveTargets(c, allTeams, v.Deployment); err != nil {
			return err
		}
		props.Page = page(c, v.Name, views.NavDeployments)
		return render(c, http.StatusOK, views.DeploymentShowPage(props))
	}
}

// teamLister lists every team (teams.Store).
type teamLister interface {
	List(ctx context.Context) ([]teams.Team, error)
}

// moveTargets are the teams a live deployment may move to, for an admin by
// their own role (not a team's); none for anyone else.
func moveTargets(c echo.Context, all teamLister, d *deployment.Deployment) ([]string, error) {
	if all == nil || d.DeletedAt != nil || !httpx.OwnUser(c).Role.AtLeast(auth.Admin) {
		return nil, nil
	}
	list, err := all.List(c.Request().Context())
	var names []string
	for _, t := range list {
		if t.ID != d.TeamID {
			names = append(names, t.Name)
		}
	}
	return names, err
}

// manualActionForms returns the forms of the manual actions of a driver
// version (none when the catalogue lost it), their prompts at their
// defaults, Markdown rendered once per content digest and kept in forms.
func manualActionForms(forms *ActionForms, md *views.Markdown, spec catalog.Spec) ([]views.ManualAction, error) {
	if spec.Driver == nil {
		return nil, nil
	}
	if f, ok := forms.Get(spec.Digest); ok {
		return f, nil
	}
	f, err := manualActions(spec.Driver, md)
	if err != nil {
		return nil, err
	}
	forms.Add(spec.Digest, f)
	return f, nil
}

// ActionForms keeps the manual actions' forms of the driver versions that
// deployment pages showed most recently, keyed by content digest; they are
// shared: read them, never modify them.
type ActionForms = lru.Cache[string, []views.ManualAction]

// ActionFormCacheBytes bounds the text of the forms an ActionForms keeps.
const ActionFormCacheBytes = 16 << 20

// NewActionForms returns an empty cache of at most max bytes of forms.
func NewActionForms(max int) *ActionForms {
	return lru.New(max, func(_ string, f []views.ManualAction) int { return lru.TextSize(reflect.ValueOf(f)) })
}

// deploymentShowProps are a deployment page's props (without the layout's
// and the manual actions').
func deploymentShowProps(v *deployment.View) views.DeploymentShowProps {
	d, live := v.Deployment, v.Live
	p := views.DeploymentShowProps{
		Name: d.Name, Namespace: d.Namespace, Status: string(d.Status), Busy: busyKind(d, v.Tasks),
		DriverName: d.Driver, DriverTitle: d.Driver, DriverVersion: d.DriverVersion,
		DriverIconURL: driverIconURL(d.Driver, d.DriverVersion, v.Spec.HasIcon),
		AppVersion:    d.AppVersion, CreatedBy: d.CreatedBy, CreatedAt: d.CreatedAt, UpdateAvailable: v.UpdateAvailable, Team: d.Team,
		ClusterError: live.Err, ReleaseMissing: live.ReleaseMissing, Notes: live.Notes,
		Tasks: taskPropsList(d.Name, v.Tasks), OlderTasksBefore: v.OlderTasksBefore,
	}
	if live.Health != nil {
		h := healthProps(live.Health)
		p.Health = &h
	}
	var spec drivers.Spec
	if v.Spec.Driver != nil {
		p.DriverTitle, spec = v.Spec.Driver.Title(), v.Spec.Driver.Spec
	}
	for _, c := range v.Components {
		row := views.ComponentRow{Name: c.Name, Title: c.Title, Stopped: c.Stopped}
		for _, w := range c.Workloads {
			row.Workloads = append(row.Workloads, views.WorkloadRow{Kind: w.Kind, Name: w.Name, Desired: int(w.Replicas), Ready: int(w.ReadyReplicas)})
		}
		p.Components = append(p.Components, row)
	}
	for _, s := range v.Services {
		p.Services = append(p.Services, views.ServiceRow{Name: s.Name, Title: s.Title, Port: s.Port, Protocol: s.Protocol, Address: s.Address, URL: s.URL})
	}
	for _, s := range live.ImageSubstitutions {
		p.ImageSubstitutions = append(p.ImageSubstitutions, views.ImageSubstitutionRow{Requested: s.Requested, Image: s.Image, Runs: s.Runs})
	}
	p.Parameters = paramRows(d, spec.Parameters)
	for _, r := range live.History {
		row := views.RevisionRow{
			Revision: r.Number, Status: string(r.Status), ChartVersion: r.ChartVersion,
			AppVersion: cmp.Or(r.AppVersion, r.Revision.AppVersion), DriverVersion: r.DriverVersion,
			Updated: r.Updated, Description: r.Description, Current: r.Current, CanRollBack: r.CanRollBack,
		}
		p.Revisions = append(p.Revisions, row)
	}
	return p
}

// paramRows lists the deployment's values in the driver's order, then any
// value the driver no longer declares; a secret only says whether it is set.
func paramRows(d *deployment.Deployment, declared []drivers.Parameter) []views.ParamRow {
	var out []views.ParamRow
	seen := map[string]bool{}
	for _, prm := range declared {
		seen[prm.Name] = true
		row := views.ParamRow{Name: prm.Name, Title: prm.Title}
		if prm.Type == drivers.TypeSecret {
			row.Secret, row.Set = true, slices.Contains(d.SecretsSet, prm.Name)
		} else if v, ok := d.Parameters[prm.Name]; ok && v != nil {
			row.Set, row.Value = true, scalarText(v)
		}
		out = append(out, row)
	}
	for _, name := range slices.Sorted(maps.Keys(d.Parameters)) {
		if !seen[name] && d.Parameters[name] != nil {
			out = append(out, views.ParamRow{Name: name, Set: true, Value: scalarText(d.Parameters[name])})
		}
	}
	for _, name := range d.SecretsSet {
		if !seen[name] {
			out = append(out, views.ParamRow{Name: name, Secret: true, Set: true})
		}
	}
	return out
}

// manualActions are the forms of the actions of d that a user may run
// (deployment.ManualAction), their prompts starting from their defaults
// (secret prompts blank).
func manualActions(d *drivers.Driver, md *views.Markdown) ([]views.ManualAction, error) {
	var out []views.ManualAction
	for _, declared := range d.Spec.Actions {
		a := deployment.ManualAction(d, declared.Name)
		if a == nil {
			continue
		}
		groups, err := paramGroups(paramPrefix, a.Prompts, deployment.FormText(a.Prompts, nil), nil, false, nil, md)
		if err != nil {
			return nil, err
		}
		// The schedule form's fields are the action's prompts under their own
		// names (prompt.<action>.<prompt>), as the schedule's errors key them.
		scheduled, err := paramGroups(promptPrefix+"."+a.Name, a.Prompts, deployment.FormText(a.Prompts, nil), nil, false, nil, md)
		if err != nil {
			return nil, err
		}
		desc, err := md.HTML(a.Description)
		if err != nil {
			return nil, err
		}
		out = append(out, views.ManualAction{Name: a.Name, Title: cmp.Or(a.Title, a.Name), Description: desc, Prompts: groups, SchedulePrompts: scheduled,
			Prunes: a.Artefacts.Prune})
	}
	return out, nil
}
