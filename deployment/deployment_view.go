package deployment

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/kube"
)

// View is one deployment as its page and the REST API show it, read once
// for both: the deployment, its driver version, what the cluster runs, its
// components and services by one rule, and its newest tasks.
type View struct {
	*Deployment
	// Spec is the deployment's driver version; Spec.Driver is nil when the
	// catalogue no longer holds it.
	Spec catalog.Spec
	// Live is what the cluster says now (Live.Err when it could not say).
	Live *Live
	// Components are the driver's components in its order, then those only
	// Styrmin remembers (a driver version the catalogue lost), by name; each
	// with its workloads when the cluster reported them (Reported).
	Components []ComponentView
	// Services are the driver's services, with their address when the
	// cluster has a Service for them.
	Services []LiveService
	// Tasks are the newest tasks, newest first; OlderTasksBefore continues
	// them (Tasks' before), 0 when there are no more.
	Tasks            []Task
	OlderTasksBefore int64
	// UpdateAvailable is the newest version of a live deployment's driver
	// that it may upgrade to (catalog.Entry.UpdateFor), "" for none.
	UpdateAvailable string
}

// ComponentView is a component of a View.
type ComponentView struct {
	Name, Title string
	Stopped     bool
	// Reported is true when the cluster was read: Workloads are then its
	// workloads with their desired and ready replicas (none: nothing runs).
	Reported  bool
	Workloads []kube.Workload
}

// ViewOptions says what of the task history a View holds.
type ViewOptions struct {
	// Tasks is how many of the newest tasks (0: DefaultTaskPage).
	Tasks int
	// WithSteps picks the tasks read with their steps (TasksWithSteps);
	// nil reads none with them.
	WithSteps func(i int, t *Task) bool
}

// View reads the deployment of that name for its page or the API: an
// unknown name is an ENOTFOUND error; a cluster that cannot be read is said
// in Live.Err, never as an error.
func (s *Service) View(ctx context.Context, name string, o ViewOptions) (*View, error) {
	d, err := s.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	withSteps := o.WithSteps
	if withSteps == nil {
		withSteps = func(int, *Task) bool { return false }
	}
	if d.Team, err = s.q.GetTeamName(ctx, d.TeamID); err != nil {
		return nil, fmt.Errorf("deployment: team of %s: %w", name, err)
	}
	v := &View{Deployment: d}
	if v.Tasks, v.OlderTasksBefore, err = s.TasksWithSteps(ctx, d.ID, 0, o.Tasks, withSteps); err != nil {
		return nil, err
	}
	if v.Spec, err = catalog.Absent(s.catalog.Spec(ctx, d.Driver, d.DriverVersion)); err != nil {
		return nil, err
	}
	var spec drivers.Spec
	if v.Spec.Driver != nil {
		spec = v.Spec.Driver.Spec
	}
	updates, err := s.updates(ctx)
	if err != nil {
		return nil, err
	}
	v.UpdateAvailable = updates(d)
	v.Live = s.Live(ctx, d, v.Spec.Driver)
	v.Components = componentViews(d, spec.Components, v.Live.Components)
	v.Services = v.Live.Services
	if v.Services == nil {
		for _, sv := range spec.Services {
			v.Services = append(v.Services, declaredService(sv))
		}
	}
	return v, nil
}

// componentViews merges a deployment's declared components, the ones
// Styrmin remembers and what the cluster reported of them.
func componentViews(d *Deployment, declared []drivers.Component, live []LiveComponent) []ComponentView {
	var out []ComponentView
	seen := map[string]bool{}
	for _, c := range declared {
		out = append(out, ComponentView{Name: c.Name, Title: cmp.Or(c.Title, c.Name), Stopped: d.Components[c.Name].Stopped})
		seen[c.Name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(d.Components)) {
		if !seen[name] {
			out = append(out, ComponentView{Name: name, Title: name, Stopped: d.Components[name].Stopped})
		}
	}
	for _, lc := range live {
		i := slices.IndexFunc(out, func(c ComponentView) bool { return c.Name == lc.Name })
		if i < 0 {
			out = append(out, ComponentView{Name: lc.Name, Title: lc.Title, Stopped: lc.Stopped})
			i = len(out) - 1
		}
		out[i].Reported, out[i].Workloads = true, lc.Workloads
	}
	return out
}

// declaredService is a driver's service without an address yet.
func declaredService(sv drivers.Service) LiveService {
	return LiveService{Name: sv.Name, Title: cmp.Or(sv.Title, sv.Name), Protocol: string(sv.EffectiveProtocol()), Port: sv.Port}
}
