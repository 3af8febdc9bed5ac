package deployment

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
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
	// id is the deployment's.
	id int64
}

// knownWords is the last known health word (other than Unknown) of each
// deployment, as this process read it: only a change of it is written to
// the database (recordWord), so that a deployment's polls at rest cost no
// write.
type knownWords struct {
	mu    sync.Mutex
	known map[string]health.Word
}

// changed records name's word and reports whether it differs from the last
// known one (or is the first this process reads); Unknown is no word: a
// cluster that could not be read for a while does not end an episode.
func (k *knownWords) changed(name string, word health.Word) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if word == health.Unknown {
		return false
	}
	if k.known == nil {
		k.known = map[string]health.Word{}
	}
	prev, seen := k.known[name]
	k.known[name] = word
	return !seen || prev != word
}

// forget forgets name's word, so that its next read is written again.
func (k *knownWords) forget(name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.known, name)
}

// keep forgets the deployments that are not in names.
func (k *knownWords) keep(names map[string]bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	maps.DeleteFunc(k.known, func(name string, _ health.Word) bool { return !names[name] })
}

// recordHealth keeps h as its deployment's newest health and, when its word
// changed, records the word in the database; a turn that the record makes
// (once across processes) goes to the log, the HealthEvents and the observer.
func (s *Service) recordHealth(ctx context.Context, h *Health) {
	s.healths.put(h.Name, h)
	if !s.words.changed(h.Name, h.Word) {
		return
	}
	turn, err := s.recordWord(ctx, h)
	if err != nil {
		s.words.forget(h.Name)
		s.log.Warn("deployment: record a deployment's health word", "deployment", h.Name, "error", err)
		return
	}
	if turn == health.TurnDegraded {
		s.log.Warn("deployment: a deployment turned Degraded", "deployment", h.Name, "reasons", h.Reasons)
		s.healthObserver.TurnedDegraded(h.Name)
	}
}

// recordWord writes h's word as its deployment's last known one and returns
// the turn it makes, told to the HealthEvents in the same transaction. The
// row is locked while it is read and changed: of several processes that
// read the same change, the first to write it has the turn, the others see
// the word already there. A deployment's first known word makes no turn.
func (s *Service) recordWord(ctx context.Context, h *Health) (health.Turn, error) {
	var turn health.Turn
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
		added, err := q.AddHealthWord(ctx, db.AddHealthWordParams{DeploymentID: h.id, Word: string(h.Word)})
		if err != nil || added == 1 {
			return err
		}
		row, err := q.LockHealthWord(ctx, h.id)
		if err != nil || health.Word(row.Word) == h.Word {
			return err
		}
		turn = health.TurnOf(health.Word(row.Word), row.DegradedAt != nil, h.Word)
		degradedAt := row.DegradedAt
		switch turn {
		case health.TurnDegraded:
			degradedAt = &h.At
		case health.TurnRecovered:
			degradedAt = nil
		}
		if err := q.SetHealthWord(ctx, db.SetHealthWordParams{DeploymentID: h.id, Word: string(h.Word), DegradedAt: degradedAt}); err != nil {
			return err
		}
		if turn == "" {
			return nil
		}
		return s.healthEvents.HealthTurned(ctx, tx, health.Turned{Turn: turn, DeploymentID: h.id, Deployment: h.Name, Driver: h.Driver,
			Assessment: h.Assessment, At: h.At})
	})
	if err != nil {
		return "", fmt.Errorf("deployment: health word of %s: %w", h.Name, err)
	}
	return turn, nil
}

// Healths returns the newest Health of every live deployment whose health
// was read, by name: shared, read-only.
func (s *Service) Healths() []*Health { return s.healths.all() }

// Health returns the health of the deployment of that name, read from the
// cluster at most HealthFresh ago: an unknown or deleted name is an
// ENOTFOUND error; a cluster that cannot be read is the word Unknown.
func (s *Service) Health(ctx context.Context, name string) (*Health, error) {
	d, err := s.getLive(ctx, name, "health")
	if err != nil {
		return nil, err
	}
	if h, ok := s.healths.newest(name); ok && time.Since(h.At) < HealthFresh {
		return h, nil
	}
	return s.readHealth(ctx, d), nil
}

// getLive returns the deployment of that name; a deleted one is an
// ENOTFOUND error, saying that it has no what (its health, its drift).
func (s *Service) getLive(ctx context.Context, name, what string) (*Deployment, error) {
	d, err := s.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	if d.DeletedAt != nil {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "Deployment %s was deleted: it has no %s.", name, what)
	}
	return d, nil
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
	s.recordHealth(ctx, h)
	return h
}

// unknownHealth is d's health when the cluster could not say, and why.
func unknownHealth(d *Deployment, why string) *Health {
	return &Health{id: d.ID, Name: d.Name, Driver: d.Driver, Assessment: health.Assessment{Word: health.Unknown, Reasons: []string{why}}, At: time.Now()}
}

// newHealth assesses d from its release's state; releaseMissing says that
// Helm has no release of it.
func newHealth(d *Deployment, components []drivers.Component, state *kube.ReleaseState, releaseMissing bool) *Health {
	h := &Health{id: d.ID, Name: d.Name, Driver: d.Driver, Pods: state.Pods, PVCs: state.PVCs, Events: state.Events, EventsLeftOut: state.EventsLeftOut, At: time.Now()}
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
	names, err := s.eachLive(ctx, func(d *Deployment) { s.readHealth(ctx, d) })
	if err != nil {
		return err
	}
	s.healths.keep(names)
	s.words.keep(names)
	return nil
}

// eachLive calls read with every live deployment, a page of the list at a
// time, and returns their names.
func (s *Service) eachLive(ctx context.Context, read func(d *Deployment)) (map[string]bool, error) {
	names := map[string]bool{}
	o := ListOptions{}
	for {
		page, err := s.List(ctx, o)
		if err != nil {
			return nil, err
		}
		for i := range page.Items {
			d := &page.Items[i].Deployment
			names[d.Name] = true
			read(d)
		}
		if o.After = page.Next; o.After == nil {
			return names, nil
		}
	}
}

// HealthEvery is how often WatchHealth reads every deployment's health.
const HealthEvery = 30 * time.Second

// WatchHealth runs CheckHealth every HealthEvery until ctx ends; a failed
// round is logged and tried again at the next.
func (s *Service) WatchHealth(ctx context.Context) {
	s.every(ctx, HealthEvery, "check the deployments' health", s.CheckHealth)
}

// every runs check every period until ctx ends; a failed round is logged
// (as what) and tried again at the next.
func (s *Service) every(ctx context.Context, period time.Duration, what string, check func(context.Context) error) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		if err := check(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("deployment: "+what, "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
