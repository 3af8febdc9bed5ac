package deployment

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/health"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/redact"
)

// HealthFresh is how long a deployment's health read from the cluster is
// served again to the pages and the API that ask for it (its poll, the
// list's badge): the viewers of a deployment share one read at most every
// HealthFresh (docs/performance.md).
const HealthFresh = 5 * time.Second

// Health is how a deployment is doing now, with what the cluster runs of
// it: its components' workloads, the release's pods, claims and newest
// events, their messages redacted.
type Health struct {
	// Name and Driver are the deployment's.
	Name, Driver string
	health.Assessment
	Components    []LiveComponent
	Pods          []kube.Pod
	PVCs          []kube.PVC
	Events        []kube.Event
	EventsLeftOut int
	// At is when the cluster was read.
	At time.Time
}

// healthBook keeps the newest Health of each live deployment, for the list,
// the metric and the viewers that poll within HealthFresh.
type healthBook struct {
	mu     sync.Mutex
	byName map[string]*Health
}

// newest returns the newest Health of name, false when none was read.
func (b *healthBook) newest(name string) (*Health, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	h, ok := b.byName[name]
	return h, ok
}

// put records h.
func (b *healthBook) put(h *Health) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byName == nil {
		b.byName = map[string]*Health{}
	}
	b.byName[h.Name] = h
}

// keep forgets the deployments that are not in names.
func (b *healthBook) keep(names map[string]bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	maps.DeleteFunc(b.byName, func(name string, _ *Health) bool { return !names[name] })
}

// Healths returns the newest Health of every live deployment whose health
// was read, by name: shared, read-only.
func (s *Service) Healths() []*Health {
	s.healths.mu.Lock()
	defer s.healths.mu.Unlock()
	out := slices.Collect(maps.Values(s.healths.byName))
	slices.SortFunc(out, func(a, b *Health) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// Health returns the health of the deployment of that name, read from the
// cluster at most HealthFresh ago: an unknown or deleted name is an
// ENOTFOUND error; a cluster that cannot be read is the word Unknown.
func (s *Service) Health(ctx context.Context, name string) (*Health, error) {
	d, err := s.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	if d.DeletedAt != nil {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "Deployment %s was deleted: it has no health.", name)
	}
	if h, ok := s.healths.newest(name); ok && time.Since(h.At) < HealthFresh {
		return h, nil
	}
	return s.readHealth(ctx, d), nil
}

// readHealth reads d's health from the cluster, records and returns it.
func (s *Service) readHealth(ctx context.Context, d *Deployment) *Health {
	h := func() *Health {
		cluster, err := s.NeedCluster()
		if err != nil {
			return unknownHealth(d, styrmin.ErrorMessage(err))
		}
		ctx, cancel := context.WithTimeout(ctx, LiveTimeout)
		defer cancel()
		drv, err := s.driverSpec(ctx, d)
		if err != nil {
			return unknownHealth(d, "Styrmin could not read the deployment's driver version: "+err.Error())
		}
		state, err := cluster.ReleaseState(ctx, d.Namespace, d.Name)
		if err != nil {
			return unknownHealth(d, clusterMessage(err))
		}
		return newHealth(d, drv.Spec.Components, state, false)
	}()
	if err := s.redactHealth(ctx, d.ID, h); err != nil {
		s.log.Error("deployment: open the secrets of a deployment's health", "deployment", d.Name, "error", err)
		h = unknownHealth(d, "Styrmin could not open this deployment's secrets, so it does not show what the cluster says of it (they would not be hidden); the server log has the details.")
	}
	s.healths.put(h)
	return h
}

// unknownHealth is d's health when the cluster could not say, and why.
func unknownHealth(d *Deployment, why string) *Health {
	return &Health{Name: d.Name, Driver: d.Driver, Assessment: health.Assessment{Word: health.Unknown, Reasons: []string{why}}, At: time.Now()}
}

// newHealth assesses d from its release's state; releaseMissing says that
// Helm has no release of it.
func newHealth(d *Deployment, components []drivers.Component, state *kube.ReleaseState, releaseMissing bool) *Health {
	h := &Health{Name: d.Name, Driver: d.Driver, Pods: state.Pods, PVCs: state.PVCs, Events: state.Events, EventsLeftOut: state.EventsLeftOut, At: time.Now()}
	in := health.Input{ReleaseMissing: releaseMissing, Busy: d.Busy, Pods: state.Pods, PVCs: state.PVCs}
	for _, c := range components {
		ws, err := state.Component(c)
		if err != nil {
			return unknownHealthOf(h, err)
		}
		stopped := d.Components[c.Name].Stopped
		h.Components = append(h.Components, LiveComponent{Name: c.Name, Title: ComponentTitle(c), Stopped: stopped, Workloads: ws})
		in.Components = append(in.Components, health.Component{Name: c.Name, Stopped: stopped, Workloads: ws})
	}
	h.Assessment = health.Assess(in)
	return h
}

// unknownHealthOf is h with the word Unknown because of err.
func unknownHealthOf(h *Health, err error) *Health {
	h.Assessment = health.Assessment{Word: health.Unknown, Reasons: []string{err.Error()}}
	return h
}

// redactHealth hides the deployment's secrets in what the cluster wrote in h.
func (s *Service) redactHealth(ctx context.Context, id int64, h *Health) error {
	r, err := s.deploymentRedactor(ctx, id)
	if err != nil {
		return err
	}
	h.redact(r)
	return nil
}

// redact hides r's secrets in the texts of h that the cluster or a chart wrote.
func (h *Health) redact(r *redact.Redactor) {
	h.Reasons = slices.Clone(h.Reasons)
	for i := range h.Reasons {
		h.Reasons[i] = r.String(h.Reasons[i])
	}
	for i := range h.Pods {
		h.Pods[i].Message = r.String(h.Pods[i].Message)
	}
	for i := range h.Events {
		h.Events[i].Message = r.String(h.Events[i].Message)
	}
}

// CheckHealth reads the health of every live deployment from the cluster,
// a deployment at a time, and forgets the health of those that are gone:
// what the deployments list and the metric show between page views.
func (s *Service) CheckHealth(ctx context.Context) error {
	names := map[string]bool{}
	o := ListOptions{}
	for {
		page, err := s.List(ctx, o)
		if err != nil {
			return err
		}
		for i := range page.Items {
			d := &page.Items[i].Deployment
			names[d.Name] = true
			s.readHealth(ctx, d)
		}
		if o.After = page.Next; o.After == nil {
			break
		}
	}
	s.healths.keep(names)
	return nil
}

// HealthEvery is how often WatchHealth reads every deployment's health.
const HealthEvery = 30 * time.Second

// WatchHealth runs CheckHealth every HealthEvery until ctx ends; a failed
// round is logged and tried again at the next.
func (s *Service) WatchHealth(ctx context.Context) {
	t := time.NewTicker(HealthEvery)
	defer t.Stop()
	for {
		if err := s.CheckHealth(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("deployment: check the deployments' health", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
