package web

import (
	"cmp"
	"context"
	"maps"
	"net/http"
	"reflect"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/lru"
	"github.com/styrmin/styrmin/views"
)

// DeploymentShow shows a deployment: its status, what the cluster runs, its
// parameters (secrets masked), its Helm revisions and its newest tasks, which
// update live while they run; the ended ones after the newest few have their
// steps folded (TaskSteps opens them). forms keeps the manual actions' forms
// of driver versions; simulated says the cluster's pods are simulated (the
// local development cluster).
func DeploymentShow(svc deploymentReader, catalog DriverCatalog, forms *ActionForms, simulated bool, md *views.Markdown) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		d, err := svc.Get(ctx, c.Param("name"))
		if err != nil {
			return err
		}
		pick := unfolded(unfoldedTasks)
		tasks, next, err := svc.TasksWithSteps(ctx, d.ID, 0, deployment.DefaultTaskPage, pick)
		if err != nil {
			return err
		}
		spec, manual, err := deployedDriver(ctx, catalog, forms, md, d)
		if err != nil {
			return err
		}
		props := deploymentShowProps(d, spec.Driver, spec.HasIcon, svc.Live(ctx, d, spec.Driver), tasks)
		foldSteps(props.Tasks, tasks, pick)
		props.OlderTasksBefore = next
		if d.DeletedAt == nil {
			props.Actions = manual
		}
		props.SimulatedCluster = simulated && d.DeletedAt == nil
		props.Page = page(c, d.Name, views.NavDeployments)
		return render(c, http.StatusOK, views.DeploymentShowPage(props))
	}
}

// deployedDriver returns the deployment's driver version (a zero Spec when
// the catalogue no longer holds it) and its manual actions' forms, their
// prompts at their defaults, Markdown rendered once per version and kept in
// forms.
func deployedDriver(ctx context.Context, cat DriverCatalog, forms *ActionForms, md *views.Markdown, d *deployment.Deployment) (catalog.Spec, []views.ManualAction, error) {
	spec, err := catalog.Absent(cat.Spec(ctx, d.Driver, d.DriverVersion))
	if err != nil || spec.Driver == nil {
		return spec, nil, err
	}
	if f, ok := forms.Get(spec.Digest); ok {
		return spec, f, nil
	}
	f, err := manualActions(spec.Driver, md)
	if err != nil {
		return spec, nil, err
	}
	forms.Add(spec.Digest, f)
	return spec, f, nil
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

// deploymentShowProps are a deployment page's props (without the layout's).
// drv may be nil when the catalogue lost the driver version.
func deploymentShowProps(d *deployment.Deployment, drv *drivers.Driver, hasIcon bool, live *deployment.Live, tasks []deployment.Task) views.DeploymentShowProps {
	p := views.DeploymentShowProps{
		Name: d.Name, Namespace: d.Namespace, Status: string(d.Status), Busy: busyKind(d, tasks),
		DriverName: d.Driver, DriverTitle: d.Driver, DriverVersion: d.DriverVersion,
		DriverIconURL: driverIconURL(d.Driver, d.DriverVersion, hasIcon),
		AppVersion:    d.AppVersion, CreatedBy: d.CreatedBy, CreatedAt: d.CreatedAt,
		ClusterError: live.Err, ReleaseMissing: live.ReleaseMissing, Notes: live.Notes,
		Tasks: taskPropsList(d.Name, tasks),
	}
	var spec drivers.Spec
	if drv != nil {
		p.DriverTitle, spec = drv.Title(), drv.Spec
	}
	p.Components = componentRows(d, spec.Components, live.Components)
	p.Services = serviceRows(spec.Services, live.Services)
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

// componentRows lists the components the cluster reported, or the declared
// ones (without workloads) when it could not be read.
func componentRows(d *deployment.Deployment, declared []drivers.Component, live []deployment.LiveComponent) []views.ComponentRow {
	var out []views.ComponentRow
	if len(live) > 0 {
		for _, lc := range live {
			row := views.ComponentRow{Name: lc.Name, Title: lc.Title, Stopped: lc.Stopped}
			for _, w := range lc.Workloads {
				row.Workloads = append(row.Workloads, views.WorkloadRow{Kind: w.Kind, Name: w.Name, Desired: int(w.Replicas), Ready: int(w.ReadyReplicas)})
			}
			out = append(out, row)
		}
		return out
	}
	for _, c := range declared {
		out = append(out, views.ComponentRow{Name: c.Name, Title: cmp.Or(c.Title, c.Name), Stopped: d.Components[c.Name].Stopped})
	}
	return out
}

// serviceRows lists the services with the addresses the cluster gave, or
// the declared ones (without addresses) when it could not be read.
func serviceRows(declared []drivers.Service, live []deployment.LiveService) []views.ServiceRow {
	var out []views.ServiceRow
	if len(live) > 0 {
		for _, s := range live {
			out = append(out, views.ServiceRow{Name: s.Name, Title: s.Title, Port: s.Port, Protocol: s.Protocol, Address: s.Address, URL: s.URL})
		}
		return out
	}
	for _, s := range declared {
		out = append(out, views.ServiceRow{Name: s.Name, Title: cmp.Or(s.Title, s.Name), Port: s.Port, Protocol: string(s.EffectiveProtocol())})
	}
	return out
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
		desc, err := md.HTML(a.Description)
		if err != nil {
			return nil, err
		}
		out = append(out, views.ManualAction{Name: a.Name, Title: cmp.Or(a.Title, a.Name), Description: desc, Prompts: groups})
	}
	return out, nil
}
