package audit

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"

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
// and leaves the middleware to record the outcome. Once an entry is
// recorded, a later change of the same request writes none (a new password
// also starts a new session: one entry).
func Within(ctx context.Context, tx db.DBTX, target string, task int64) (committed func(), err error) {
	p, _ := ctx.Value(pendingKey{}).(*Pending)
	if p == nil || p.recorded {
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

// NameTarget names the target of ctx's pending entry, for a request that
// learns it as it goes (a single sign-on learns who signs in from the
// provider's answer), and adds detail to it.
func NameTarget(ctx context.Context, name string, detail map[string]string) {
	p, _ := ctx.Value(pendingKey{}).(*Pending)
	if p == nil {
		return
	}
	p.Entry.Target.Name = name
	for k, v := range detail {
		p.Entry.Detail = with(p.Entry.Detail, k, v)
	}
}

// Conn is a database connection that starts transactions: a *pgxpool.Pool,
// or a pgx.Tx (whose Begin is a savepoint).
type Conn interface {
	db.DBTX
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Change makes a change in one transaction of conn with the pending entry
// of ctx (Within): change does its work with tx and returns the name of its
// target. An error of change, or of writing the entry, rolls both back and
// is returned as it is (the middleware then records the outcome).
func Change(ctx context.Context, conn Conn, change func(tx pgx.Tx) (target string, err error)) error {
	var audited func()
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		target, err := change(tx)
		if err != nil {
			return err
		}
		audited, err = Within(ctx, tx, target, 0)
		return err
	})
	if err != nil {
		return err
	}
	audited()
	return nil
}

// Note adds key with value to the detail of the pending entry of ctx, if
// there is one: what the change was, beyond its target.
func Note(ctx context.Context, key, value string) {
	if p, _ := ctx.Value(pendingKey{}).(*Pending); p != nil {
		p.Entry.Detail = with(p.Entry.Detail, key, value)
	}
}
