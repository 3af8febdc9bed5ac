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

// Caller is who manages webhooks: admins manage every webhook, operators
// those filtered to deployments, read-only users none.
type Caller struct {
	Username string
	Role     auth.Role
}

// mayManage says why the caller may not manage w ("" when they may).
func (c Caller) mayManage(perDeployment bool) error {
	switch {
	case c.Role.AtLeast(auth.Admin):
		return nil
	case c.Role.AtLeast(auth.Operator) && perDeployment:
		return nil
	case c.Role.AtLeast(auth.Operator):
		return styrmin.Errorf(styrmin.EFORBIDDEN, "Operators manage webhooks of named deployments only; a webhook for every deployment is an admin's.")
	}
	return styrmin.Errorf(styrmin.EFORBIDDEN, "Webhooks are managed by operators and admins.")
}

// MayRetarget reports whether the caller may change where w's deliveries
// go and what signs them (its URL and secret): only its creator and admins
// may, so that nobody who may merely edit a webhook (an operator, on
// another's webhook of named deployments) sends it, and the past deliveries
// they may redeliver, signed with its owner's secret, to an address of
// their choosing.
func (c Caller) MayRetarget(w Webhook) bool {
	return c.Role.AtLeast(auth.Admin) || (c.Role.AtLeast(auth.Operator) && c.Username == w.CreatedBy)
}

// mayRetarget says why the caller may not change w's URL or secret (nil when they may).
func (c Caller) mayRetarget(w Webhook) error {
	if c.MayRetarget(w) {
		return nil
	}
	return styrmin.Errorf(styrmin.EFORBIDDEN, "Only %s, who created this webhook, or an admin may change its URL or secret.", w.CreatedBy)
}

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

// Create checks nw and stores it as a new webhook, its secret sealed.
func (s *Store) Create(ctx context.Context, by Caller, nw NewWebhook) (Webhook, error) {
	nw, err := nw.checked(s.rules, "created", true)
	if err != nil {
		return Webhook{}, err
	}
	if err := by.mayManage(len(nw.Deployments) > 0); err != nil {
		return Webhook{}, err
	}
	events := eventNames(nw.Events)
	var row db.Webhook
	err = audit.Change(ctx, s.pool, func(tx pgx.Tx) (string, error) {
		q := s.q.WithTx(tx)
		var err error
		row, err = q.InsertWebhook(ctx, db.InsertWebhookParams{Url: nw.URL, Events: events, Deployments: nw.Deployments,
			Kinds: nw.Kinds, Format: string(nw.Format), CreatedBy: by.Username})
		if err != nil {
			return "", err
		}
		return webhookName(row.ID), q.SetWebhookSecret(ctx, db.SetWebhookSecretParams{ID: row.ID, Secret: s.box.Seal([]byte(nw.Secret), secretAt(row.ID))})
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("webhooks: create: %w", err)
	}
	return webhookOf(row), nil
}

// List returns the webhooks the caller manages, newest first.
func (s *Store) List(ctx context.Context, by Caller) ([]Webhook, error) {
	if err := by.mayManage(true); err != nil {
		return nil, err
	}
	rows, err := s.q.ListWebhooks(ctx, !by.Role.AtLeast(auth.Admin))
	if err != nil {
		return nil, fmt.Errorf("webhooks: list: %w", err)
	}
	out := make([]Webhook, len(rows))
	for i, r := range rows {
		out[i] = webhookOf(r)
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

// get returns the webhook id if the caller manages it.
func (s *Store) get(ctx context.Context, by Caller, id int64) (Webhook, error) {
	if err := by.mayManage(true); err != nil {
		return Webhook{}, err
	}
	row, err := s.q.GetWebhook(ctx, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return Webhook{}, notFound(id)
	}
	if err != nil {
		return Webhook{}, fmt.Errorf("webhooks: get %d: %w", id, err)
	}
	w := webhookOf(row)
	if err := by.mayManage(w.PerDeployment()); err != nil {
		return Webhook{}, err
	}
	return w, nil
}

// notFound is the error of a webhook that does not exist.
func notFound(id int64) error {
	return styrmin.Errorf(styrmin.ENOTFOUND, "There is no webhook %d.", id)
}

// Delete removes the webhook id and its delivery log, if the caller manages it.
func (s *Store) Delete(ctx context.Context, by Caller, id int64) error {
	if _, err := s.get(ctx, by, id); err != nil {
		return err
	}
	return audit.Change(ctx, s.pool, func(tx pgx.Tx) (string, error) {
		n, err := s.q.WithTx(tx).DeleteWebhook(ctx, id)
		if err != nil {
			return "", fmt.Errorf("webhooks: delete %d: %w", id, err)
		}
		if n == 0 {
			return "", notFound(id)
		}
		return webhookName(id), nil
	})
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
// URL or secret, may retarget it (MayRetarget), and returns it.
func (s *Store) Update(ctx context.Context, by Caller, id int64, ch WebhookChange) (Webhook, error) {
	w, err := s.get(ctx, by, id)
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
	if nw, err = nw.checked(s.rules, "saved", nw.Secret != ""); err != nil {
		return Webhook{}, err
	}
	if err := by.mayManage(len(nw.Deployments) > 0); err != nil {
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
	return webhookOf(row), nil
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
	if _, err := s.get(ctx, by, id); err != nil {
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
// each field that is wrong. The secret is checked when withSecret is set.
func (nw NewWebhook) checked(rules Rules, done string, withSecret bool) (NewWebhook, error) {
	fields := map[string]string{}
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
	for _, f := range []string{"url", "secret", "events", "deployments", "kinds", "format"} {
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

// CallerOf is the Caller a user is.
func CallerOf(u auth.User) Caller { return Caller{Username: u.Username, Role: u.Role} }
