package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
)

// DefaultPage and MaxPage are how many entries List returns at once
// unless told, and at most.
const (
	DefaultPage = 50
	MaxPage     = 200
)

// MaxRequestID is the longest request id an entry holds and a filter may
// name: the server's ids are shorter, a trusted proxy's may be this long
// (handlers/httpx.ValidRequestID).
const MaxRequestID = 128

// Store reads and writes the audit log in PostgreSQL.
type Store struct {
	pool *pgxpool.Pool
}

// NewStore returns the audit log of pool.
func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool}
}

// Record appends e to the log.
func (s *Store) Record(ctx context.Context, e Entry) error {
	return Record(ctx, s.pool, e)
}

// Record appends e to the log through q: pass a transaction to write the
// entry with the change it records, so that both commit or neither does.
func Record(ctx context.Context, q db.DBTX, e Entry) error {
	detail, err := e.detailJSON()
	if err != nil {
		return fmt.Errorf("audit: record %s: %w", e.Action, err)
	}
	a := e.Actor
	if a.Via == "" {
		a.Via = ViaNone
	}
	_, err = db.New(q).InsertAuditEntry(ctx, db.InsertAuditEntryParams{
		ActorUserID: nonZero(a.UserID), ActorTokenID: nonZero(a.TokenID), ActorName: a.Name, ActorVia: string(a.Via), ActorRole: a.Role, ActorAddress: a.Address,
		Action: e.Action, TargetKind: e.Target.Kind, TargetName: e.Target.Name, Outcome: string(e.Outcome), Reason: e.Reason,
		Detail: detail, RequestID: e.RequestID, TargetTask: idOf(e.Target, TargetDeployment), TargetWebhook: idOf(e.Target, TargetWebhook),
	})
	if err != nil {
		return fmt.Errorf("audit: record %s: %w", e.Action, err)
	}
	return nil
}

// Viewer is who reads the log: an admin reads all of it; anyone else only
// the entries about deployments and teams, without addresses, and of those
// only the entries of Teams when it is not nil.
type Viewer struct {
	Admin bool
	// Teams, when not nil, keeps the entries of these teams only (a
	// member's: about their teams' deployments and their teams).
	Teams []int64
}

// Filter selects entries; zero fields select everything.
type Filter struct {
	// Actor is a username.
	Actor string
	// Action is an action (deployment.install) or a family (deployment).
	Action string
	// TargetKind and TargetName select what the entries are about.
	TargetKind string
	TargetName string
	// Outcome selects the entries that ended so.
	Outcome Outcome
	// RequestID selects the entry of one request (its X-Request-Id).
	RequestID string
	// Since and Until bound the time: Since <= at < Until.
	Since, Until time.Time
	// Before continues a listing: entries older than the entry with this
	// id (a page's Next); 0 starts at the newest.
	Before int64
	// Limit is the page size, 1 to MaxPage (0: DefaultPage).
	Limit int
}

// Page is a page of entries, newest first.
type Page struct {
	Entries []Entry
	// Next continues the listing (Filter.Before); 0 at the end.
	Next int64
}

// actionFilter is what an action filter may be: dotted lower-case words.
var actionFilter = regexp.MustCompile(`^[a-z_]+(\.[a-z_]+)*$`)

// List returns the page of entries f selects that v may see.
func (s *Store) List(ctx context.Context, v Viewer, f Filter) (Page, error) {
	if f.Limit == 0 {
		f.Limit = DefaultPage
	}
	if f.Limit < 1 || f.Limit > MaxPage {
		return Page{}, styrmin.Errorf(styrmin.EINVALID, "The page size must be between 1 and %d.", MaxPage)
	}
	if f.Action != "" && !actionFilter.MatchString(f.Action) {
		return Page{}, styrmin.Errorf(styrmin.EINVALID, "%q is not an action: actions are dotted words such as deployment.install.", f.Action)
	}
	if len(f.RequestID) > MaxRequestID {
		return Page{}, styrmin.Errorf(styrmin.EINVALID, "A request id has at most %d characters.", MaxRequestID)
	}
	if f.Outcome != "" && !f.Outcome.Valid() {
		return Page{}, styrmin.Errorf(styrmin.EINVALID, "There is no outcome %q: choose allowed, refused or failed.", f.Outcome)
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return Page{}, styrmin.Errorf(styrmin.EINVALID, "The time range ends before it starts.")
	}
	rows, err := s.list(ctx, v, f)
	if err != nil {
		return Page{}, fmt.Errorf("audit: list: %w", db.Classify(err))
	}
	var page Page
	for i, r := range rows {
		if i == f.Limit {
			page.Next = page.Entries[f.Limit-1].ID
			break
		}
		e := Entry{
			ID: r.ID, At: r.At,
			Actor:  Actor{Name: r.ActorName, Via: Via(r.ActorVia), Role: r.ActorRole, Address: r.ActorAddress},
			Action: r.Action, Target: Target{Kind: r.TargetKind, Name: r.TargetName},
			Outcome: Outcome(r.Outcome), Reason: r.Reason, RequestID: r.RequestID,
		}
		if r.ActorUserID != nil {
			e.Actor.UserID = *r.ActorUserID
		}
		if r.ActorTokenID != nil {
			e.Actor.TokenID = *r.ActorTokenID
		}
		if err := json.Unmarshal(r.Detail, &e.Detail); err != nil {
			return Page{}, fmt.Errorf("audit: entry %d: detail: %w", r.ID, err)
		}
		page.Entries = append(page.Entries, e)
	}
	return page, nil
}

// list reads the page of rows f selects that v may see (and one more, to
// know that a next page exists): a member's through the page of each of
// their teams.
func (s *Store) list(ctx context.Context, v Viewer, f Filter) ([]db.ListAuditEntriesRow, error) {
	before := db.PageBefore(f.Before)
	// Each read is planned for its filters (db.CustomPlans).
	q := db.New(db.CustomPlans(s.pool))
	if v.Teams == nil {
		return q.ListAuditEntries(ctx, db.ListAuditEntriesParams{
			Admin: v.Admin, Before: before, Actor: f.Actor, Action: f.Action, TargetKind: f.TargetKind, TargetName: f.TargetName,
			Outcome: string(f.Outcome), RequestID: f.RequestID, Since: timeOrNil(f.Since), Until: timeOrNil(f.Until), MaxRows: int32(f.Limit + 1),
		})
	}
	rows, err := q.ListTeamAuditEntries(ctx, db.ListTeamAuditEntriesParams{
		TeamIds: v.Teams, Before: before, Actor: f.Actor, Action: f.Action, TargetKind: f.TargetKind, TargetName: f.TargetName,
		Outcome: string(f.Outcome), RequestID: f.RequestID, Since: timeOrNil(f.Since), Until: timeOrNil(f.Until), MaxRows: int32(f.Limit + 1),
	})
	page := make([]db.ListAuditEntriesRow, len(rows))
	for i, r := range rows {
		page[i] = db.ListAuditEntriesRow(r)
	}
	return page, err
}

// Each calls fn with every entry f selects that v may see, newest first,
// page by page (f.Before and f.Limit are its own).
func (s *Store) Each(ctx context.Context, v Viewer, f Filter, fn func(Entry) error) error {
	f.Before, f.Limit = 0, MaxPage
	for {
		page, err := s.List(ctx, v, f)
		if err != nil {
			return err
		}
		for _, e := range page.Entries {
			if err := fn(e); err != nil {
				return err
			}
		}
		if page.Next == 0 {
			return nil
		}
		f.Before = page.Next
	}
}

// Prune deletes the entries recorded before before and says how many.
func (s *Store) Prune(ctx context.Context, before time.Time) (int64, error) {
	n, err := db.New(s.pool).PruneAuditEntries(ctx, before)
	if err != nil {
		return 0, fmt.Errorf("audit: prune: %w", db.Classify(err))
	}
	return n, nil
}

// idOf is the id that a target of kind names, else nil: a deployment's
// entry that names a task by its id keeps the team of that task's
// deployment, and a webhook's entry the team of that webhook.
func idOf(t Target, kind string) *int64 {
	if t.Kind != kind {
		return nil
	}
	id, err := strconv.ParseInt(t.Name, 10, 64)
	if err != nil {
		return nil
	}
	return &id
}

// nonZero is &n, or nil for 0 (none).
func nonZero(n int64) *int64 {
	if n == 0 {
		return nil
	}
	return &n
}

// timeOrNil is t, or nil for the zero time (no bound).
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// ParseTime reads a time bound of a filter as people type it: an RFC 3339
// time, a browser's date-time field (2026-12-01T09:00 or with seconds, UTC) or a date
// (midnight UTC); empty is the zero time (no bound).
func ParseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, styrmin.Errorf(styrmin.EINVALID, "%q is neither an RFC 3339 time (2026-12-01T09:00:00Z) nor a date (2026-12-01).", s)
}
