package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/secrets"
)

// Limits on what a webhook may be made of.
const (
	MaxURLLength    = 2048
	MinSecretLength = 16
	MaxSecretLength = 256
	// DeliveryLogSize is how many of a webhook's latest deliveries its log shows.
	DeliveryLogSize = 50
)

// NewWebhook is what a webhook is created from.
type NewWebhook struct {
	URL    string
	Secret string
	Events []Event
	// Deployments and Kinds filter the tasks; empty means every one.
	Deployments []string
	Kinds       []string
	// Format is FormatJSON when empty.
	Format Format
	// Team is the name of the team whose deployments the webhook hears of;
	// "" for a global webhook (of every team).
	Team string
}

// Store keeps webhooks and their delivery logs.
type Store struct {
	pool *pgxpool.Pool
	q    *db.Queries
	box  *secrets.Box
	jobs executor.JobInserter
	// rules checks the deployments and task kinds a webhook names.
	rules Rules
}

// Rules is what a webhook's deployment names and task kinds are checked
// against: the deployment service's own rules (app.New gives
// deployment.CheckDeploymentName and deployment.TaskKinds).
type Rules struct {
	// CheckDeploymentName says what is wrong with a deployment's name.
	CheckDeploymentName func(name string) error
	// TaskKinds lists every kind of task.
	TaskKinds []string
}

// NewStore returns the store on pool, sealing secrets with box, queueing
// redeliveries with jobs (the executor) and checking webhooks by rules.
func NewStore(pool *pgxpool.Pool, box *secrets.Box, jobs executor.JobInserter, rules Rules) *Store {
	return &Store{pool: pool, q: db.New(pool), box: box, jobs: jobs, rules: rules}
}

// Create checks nw and stores it as a new webhook, its secret sealed: a
// global one, or one of a team the caller may make webhooks for
// (Caller.TeamChoices; another team is refused at the field team).
func (s *Store) Create(ctx context.Context, by Caller, nw NewWebhook) (Webhook, error) {
	if err := by.mayCreate(); err != nil {
		return Webhook{}, err
	}
	nw.Team = strings.TrimSpace(nw.Team)
	nw, err := nw.checked(s.rules, "created", true, by.teamRefused(nw.Team))
	if err != nil {
		return Webhook{}, err
	}
	team, err := s.teamNamed(ctx, nw.Team)
	if err != nil {
		return Webhook{}, err
	}
	if err := by.mayManage(team, len(nw.Deployments) > 0); err != nil {
		return Webhook{}, err
	}
	events := eventNames(nw.Events)
	var row db.Webhook
	err = audit.Change(ctx, s.pool, func(tx pgx.Tx) (string, error) {
		q := s.q.WithTx(tx)
		var err error
		row, err = q.InsertWebhook(ctx, db.InsertWebhookParams{Url: nw.URL, Events: events, Deployments: nw.Deployments,
			Kinds: nw.Kinds, Format: string(nw.Format), CreatedBy: by.Username, TeamID: team})
		if err != nil {
			return "", err
		}
		return webhookName(row.ID), q.SetWebhookSecret(ctx, db.SetWebhookSecretParams{ID: row.ID, Secret: s.box.Seal([]byte(nw.Secret), secretAt(row.ID))})
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("webhooks: create: %w", err)
	}
	return webhookOf(row, pgtype.Text{String: nw.Team, Valid: team != nil}), nil
}

// teamNamed is the id of the team of that name, nil for "" (global); one
// that does not exist is refused at the field team.
func (s *Store) teamNamed(ctx context.Context, name string) (*int64, error) {
	if name == "" {
		return nil, nil
	}
	t, err := s.q.GetTeamByName(ctx, name)
	if errors.Is(err, pgx.ErrNoRows) {
		msg := fmt.Sprintf("There is no team named %q.", name)
		return nil, &styrmin.Error{Code: styrmin.EINVALID, Message: "The webhook was not created: " + msg, Fields: map[string]string{"team": msg}}
	}
	if err != nil {
		return nil, fmt.Errorf("webhooks: team %s: %w", name, err)
	}
	return &t.ID, nil
}

// List returns the webhooks the caller sees, newest first: every one for an
// admin, those filtered to deployments for an operator, and those of the
// caller's teams, chosen in SQL.
func (s *Store) List(ctx context.Context, by Caller) ([]Webhook, error) {
	rows, err := s.q.ListWebhooks(ctx, db.ListWebhooksParams{Every: by.Role.AtLeast(auth.Admin), PerDeployment: by.global(), TeamIds: by.readable()})
	if err != nil {
		return nil, fmt.Errorf("webhooks: list: %w", err)
	}
	out := make([]Webhook, len(rows))
	for i, r := range rows {
		out[i] = webhookOf(r.Webhook, r.Team)
	}
	return out, nil
}

// Get returns the webhook id, if the caller manages it, and its latest deliveries.
func (s *Store) Get(ctx context.Context, by Caller, id int64) (Webhook, []Delivery, error) {
	w, err := s.get(ctx, by, id)
	if err != nil {
		return Webhook{}, nil, err
	}
	rows, err := s.q.ListDeliveries(ctx, db.ListDeliveriesParams{WebhookID: id, PageSize: DeliveryLogSize})
	if err != nil {
		return Webhook{}, nil, fmt.Errorf("webhooks: deliveries of %d: %w", id, err)
	}
	deliveries := make([]Delivery, len(rows))
	ids := make([]int64, len(rows))
	at := make(map[int64]int, len(rows))
	for i, r := range rows {
		deliveries[i] = deliveryOf(r.WebhookDelivery)
		deliveries[i].Deployment = r.Deployment
		ids[i], at[r.WebhookDelivery.ID] = r.WebhookDelivery.ID, i
	}
	attempts, err := s.q.ListDeliveryAttempts(ctx, ids)
	if err != nil {
		return Webhook{}, nil, fmt.Errorf("webhooks: attempts of %d: %w", id, err)
	}
	for _, a := range attempts {
		d := &deliveries[at[a.DeliveryID]]
		d.Log = append(d.Log, attemptOf(a))
	}
	return w, deliveries, nil
}

// get returns the webhook id if the caller may read it (mayRead).
func (s *Store) get(ctx context.Context, by Caller, id int64) (Webhook, error) {
	row, err := s.q.GetWebhook(ctx, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return Webhook{}, notFound(id)
	}
	if err != nil {
		return Webhook{}, fmt.Errorf("webhooks: get %d: %w", id, err)
	}
	w := webhookOf(row.Webhook, row.Team)
	if err := by.mayRead(w); err != nil {
		return Webhook{}, err
	}
	return w, nil
}

// managed returns the webhook id if the caller may change it (mayManage).
func (s *Store) managed(ctx context.Context, by Caller, id int64) (Webhook, error) {
	w, err := s.get(ctx, by, id)
	if err != nil {
		return Webhook{}, err
	}
	return w, by.mayManage(w.TeamID, w.PerDeployment())
}

// NotFound is the error of a webhook that does not exist: also the answer
// about a webhook the caller may not know of, so ids do not leak.
func NotFound(id int64) error { return notFound(id) }

// notFound is the error of a webhook that does not exist.
func notFound(id int64) error {
	return styrmin.Errorf(styrmin.ENOTFOUND, "There is no webhook %d.", id)
}

// Delete removes the webhook id and its delivery log, if the caller manages
// it. The audit entry is written before the row goes, so that it keeps the
// webhook's team.
func (s *Store) Delete(ctx context.Context, by Caller, id int64) error {
	if _, err := s.managed(ctx, by, id); err != nil {
		return err
	}
	var audited func()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if audited, err = audit.Within(ctx, tx, webhookName(id), 0); err != nil {
			return err
		}
		n, err := s.q.WithTx(tx).DeleteWebhook(ctx, id)
		if err != nil {
			return fmt.Errorf("webhooks: delete %d: %w", id, err)
		}
		if n == 0 {
			return notFound(id)
		}
		return nil
	})
	if err != nil {
		return err
	}
	audited()
	return nil
}

// WebhookChange is what Update changes; nil fields stay as they are.
type WebhookChange struct {
	URL *string
	// Secret replaces the secret; nil or "" keeps it (it is never shown back).
	Secret      *string
	Events      *[]Event
	Deployments *[]string
	Kinds       *[]string
	Format      *Format
}

// Update applies ch to the webhook id, checked as a new webhook is, if the
// caller manages it both before and after (an operator cannot make a webhook
// of named deployments one for every deployment) and, when ch changes its
// URL or secret, may retarget it (MayRetarget), and returns it. Its team
// stays.
func (s *Store) Update(ctx context.Context, by Caller, id int64, ch WebhookChange) (Webhook, error) {
	w, err := s.managed(ctx, by, id)
	if err != nil {
		return Webhook{}, err
	}
	nw := NewWebhook{URL: w.URL, Events: w.Events, Deployments: w.Deployments, Kinds: w.Kinds, Format: w.Format}
	set(&nw.URL, ch.URL)
	set(&nw.Secret, ch.Secret)
	set(&nw.Events, ch.Events)
	set(&nw.Deployments, ch.Deployments)
	set(&nw.Kinds, ch.Kinds)
	set(&nw.Format, ch.Format)
	if nw, err = nw.checked(s.rules, "saved", nw.Secret != "", ""); err != nil {
		return Webhook{}, err
	}
	if err := by.mayManage(w.TeamID, len(nw.Deployments) > 0); err != nil {
		return Webhook{}, err
	}
	if nw.URL != w.URL || nw.Secret != "" {
		if err := by.mayRetarget(w); err != nil {
			return Webhook{}, err
		}
	}
	var row db.Webhook
	err = audit.Change(ctx, s.pool, func(tx pgx.Tx) (string, error) {
		q := s.q.WithTx(tx)
		var err error
		row, err = q.UpdateWebhook(ctx, db.UpdateWebhookParams{ID: id, Url: nw.URL, Events: eventNames(nw.Events), Deployments: nw.Deployments,
			Kinds: nw.Kinds, Format: string(nw.Format)})
		if errors.Is(err, pgx.ErrNoRows) {
			return "", notFound(id)
		}
		if err != nil || nw.Secret == "" {
			return webhookName(id), err
		}
		return webhookName(id), q.SetWebhookSecret(ctx, db.SetWebhookSecretParams{ID: id, Secret: s.box.Seal([]byte(nw.Secret), secretAt(id))})
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("webhooks: update %d: %w", id, err)
	}
	return webhookOf(row, pgtype.Text{String: w.Team, Valid: w.TeamID != nil}), nil
}

// set sets *field to *value when value is not nil.
func set[T any](field *T, value *T) {
	if value != nil {
		*field = *value
	}
}

// webhookName is a webhook's id as an audit entry names it.
func webhookName(id int64) string { return strconv.FormatInt(id, 10) }

// eventNames is events as the table stores them.
func eventNames(events []Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = string(e)
	}
	return out
}

// Redeliver sends delivery deliveryID of webhook id again, byte for byte,
// as a new delivery (with an id of its own), and returns it.
func (s *Store) Redeliver(ctx context.Context, by Caller, id, deliveryID int64) (Delivery, error) {
	if _, err := s.managed(ctx, by, id); err != nil {
		return Delivery{}, err
	}
	old, err := s.q.GetDelivery(ctx, deliveryID)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && old.WebhookID != id) {
		return Delivery{}, styrmin.Errorf(styrmin.ENOTFOUND, "Webhook %d has no delivery %d.", id, deliveryID)
	}
	if err != nil {
		return Delivery{}, fmt.Errorf("webhooks: redeliver %d: %w", deliveryID, err)
	}
	var row db.WebhookDelivery
	err = audit.Change(ctx, s.pool, func(tx pgx.Tx) (string, error) {
		var err error
		row, err = queueDelivery(ctx, tx, s.jobs, db.InsertDeliveryParams{WebhookID: id, DeploymentID: old.DeploymentID, TaskID: old.TaskID, Event: old.Event,
			Body: old.Body, RedeliveryOf: &old.ID})
		return webhookName(id), err
	})
	if err != nil {
		return Delivery{}, fmt.Errorf("webhooks: redeliver %d: %w", deliveryID, err)
	}
	return deliveryOf(row), nil
}

// checked is nw checked by rules, its lists trimmed and sorted, its format set; an
// EINVALID error says the webhook was not done (created, saved) and names
// each field that is wrong. The secret is checked when withSecret is set;
// teamRefused, when not "", says why its team may not be chosen.
func (nw NewWebhook) checked(rules Rules, done string, withSecret bool, teamRefused string) (NewWebhook, error) {
	fields := map[string]string{}
	if teamRefused != "" {
		fields["team"] = teamRefused
	}
	nw.URL = strings.TrimSpace(nw.URL)
	if msg := checkURL(nw.URL); msg != "" {
		fields["url"] = msg
	}
	switch n := len(nw.Secret); {
	case !withSecret:
	case n < MinSecretLength:
		fields["secret"] = fmt.Sprintf("Give a secret of at least %d characters: the receiver checks each delivery's signature with it.", MinSecretLength)
	case n > MaxSecretLength:
		fields["secret"] = fmt.Sprintf("The secret has %d characters; at most %d are allowed.", n, MaxSecretLength)
	}
	nw.Events = sortedSet(nw.Events)
	if len(nw.Events) == 0 {
		fields["events"] = "Choose at least one event."
	}
	for _, e := range nw.Events {
		if !slices.Contains(AllEvents(), e) {
			fields["events"] = fmt.Sprintf("There is no event %q: choose among %s.", e, strings.Join(eventNames(AllEvents()), ", "))
		}
	}
	nw.Deployments = sortedSet(trimmed(nw.Deployments))
	for _, name := range nw.Deployments {
		if err := rules.CheckDeploymentName(name); err != nil {
			fields["deployments"] = fmt.Sprintf("%q: %v.", name, err)
		}
	}
	nw.Kinds = sortedSet(trimmed(nw.Kinds))
	for _, kind := range nw.Kinds {
		if !slices.Contains(rules.TaskKinds, kind) {
			fields["kinds"] = fmt.Sprintf("There is no task kind %q: choose among %s.", kind, strings.Join(rules.TaskKinds, ", "))
		}
	}
	if nw.Format == "" {
		nw.Format = FormatJSON
	}
	if !slices.Contains(Formats(), nw.Format) {
		fields["format"] = fmt.Sprintf("There is no format %q: choose json or slack.", nw.Format)
	}
	if len(fields) > 0 {
		return nw, &styrmin.Error{Code: styrmin.EINVALID, Message: "The webhook was not " + done + ": " + firstOf(fields), Fields: fields}
	}
	return nw, nil
}

// checkURL says what is wrong with a webhook's URL, "" when nothing is. Any
// host is allowed, loopback and private ones included: an admin sets it.
func checkURL(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return "Give the URL the events are POSTed to."
	case len(raw) > MaxURLLength:
		return fmt.Sprintf("The URL has %d characters; at most %d are allowed.", len(raw), MaxURLLength)
	case err != nil:
		return fmt.Sprintf("The URL does not parse: %v.", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return "The URL must start with https:// (or http://)."
	case u.Host == "":
		return "The URL names no host."
	case u.User != nil:
		return "Leave credentials out of the URL: the signature authenticates deliveries."
	}
	return ""
}

// firstOf is the message of the first field of fields, in the form's order.
func firstOf(fields map[string]string) string {
	for _, f := range []string{"team", "url", "secret", "events", "deployments", "kinds", "format"} {
		if m, ok := fields[f]; ok {
			return m
		}
	}
	return ""
}

// trimmed is list without blanks around its items, and without empty ones.
func trimmed(list []string) []string {
	out := []string{}
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// sortedSet is list sorted, each item once (never nil).
func sortedSet[T ~string](list []T) []T {
	out := slices.Clone(list)
	slices.Sort(out)
	return append([]T{}, slices.Compact(out)...)
}
