package audit

import (
	"context"
	"strconv"

	"github.com/styrmin/styrmin/db"
)

// Pending is the entry of a request in progress. The request's middleware
// puts it into the request's context; a service that makes the change in a
// transaction writes it there (Within), so that the entry and the change
// commit together, and the middleware records it, with the outcome it sees,
// only when no service did.
type Pending struct {
	// Entry is the entry so far: action and target; Actor tells who.
	Entry Entry
	// Actor returns who makes the request, asked when the entry is written
	// (the credential is checked after the entry starts).
	Actor func() Actor
	// recorded is set once the entry is committed.
	recorded bool
}

// Recorded reports whether a service wrote the entry with its change.
func (p *Pending) Recorded() bool { return p.recorded }

// pendingKey keys the Pending of a request's context.
type pendingKey struct{}

// WithPending returns ctx carrying p.
func WithPending(ctx context.Context, p *Pending) context.Context {
	return context.WithValue(ctx, pendingKey{}, p)
}

// Within writes the pending entry of ctx, if there is one, as allowed, in
// tx, naming the target name (when the request did not) and the task the
// change queued (0: none). The returned func marks it recorded: call it once
// tx has committed; a transaction that rolls back takes the entry with it
// and leaves the middleware to record the outcome.
func Within(ctx context.Context, tx db.DBTX, target string, task int64) (committed func(), err error) {
	p, _ := ctx.Value(pendingKey{}).(*Pending)
	if p == nil {
		return func() {}, nil
	}
	e := p.Entry
	if p.Actor != nil {
		e.Actor = p.Actor()
	}
	if e.Target.Name == "" {
		e.Target.Name = target
	}
	if task != 0 {
		e.Detail = with(e.Detail, "task", strconv.FormatInt(task, 10))
	}
	e.Outcome = Allowed
	if err := Record(ctx, tx, e); err != nil {
		return nil, err
	}
	return func() { p.recorded = true }, nil
}

// with returns a copy of detail with key set to value.
func with(detail map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(detail)+1)
	for k, v := range detail {
		out[k] = v
	}
	out[key] = value
	return out
}

// Note adds key with value to the detail of the pending entry of ctx, if
// there is one: what the change was, beyond its target.
func Note(ctx context.Context, key, value string) {
	if p, _ := ctx.Value(pendingKey{}).(*Pending); p != nil {
		p.Entry.Detail = with(p.Entry.Detail, key, value)
	}
}
