package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/webhooks"
)

// hooksApp is a server with two teams, a and b, each with a webhook (and b's
// with a past delivery), a global webhook, and users whose own role is
// member: ada, admin in a; otto, operator in a; rob, read-only in a.
type hooksApp struct {
	*handlerstest.App
	ada, otto, rob                handlerstest.Visitor
	adaToken, ottoToken, robToken string
	ofA, ofB, global              webhooks.Webhook
	// pastOfB is a delivery of b's webhook.
	pastOfB int64
	// teamA is team a's id.
	teamA int64
}

// hookSecret is the secret of the tests' webhooks.
const hookSecret = "a-webhook-secret-of-32-characters"

func setupHooks(t *testing.T) hooksApp {
	t.Helper()
	ctx := context.Background()
	s := hooksApp{App: handlerstest.Setup(t)}
	for _, team := range []string{"a", "b"} {
		created, err := s.Deps.Teams.Create(ctx, team)
		require.NoError(t, err)
		if team == "a" {
			s.teamA = created.ID
		}
	}
	for _, m := range []struct {
		name  string
		role  auth.Role
		v     *handlerstest.Visitor
		token *string
	}{{"ada", auth.Admin, &s.ada, &s.adaToken}, {"otto", auth.Operator, &s.otto, &s.ottoToken}, {"rob", auth.ReadOnly, &s.rob, &s.robToken}} {
		var u auth.User
		*m.v, u = s.As(t, m.name, auth.Member)
		require.NoError(t, s.Deps.Teams.SetMember(ctx, "a", u.ID, m.role))
		*m.token = s.TokenOf(t, u)
	}
	root := webhooks.Caller{Username: "root", Role: auth.Admin}
	hook := func(path, team string) webhooks.Webhook {
		w, err := s.Webhooks.Create(ctx, root, webhooks.NewWebhook{URL: "https://hooks.example/" + path, Secret: hookSecret,
			Events: []webhooks.Event{webhooks.Failed}, Team: team})
		require.NoError(t, err)
		return w
	}
	s.ofA, s.ofB, s.global = hook("a", "a"), hook("b", "b"), hook("all", "")
	s.pastOfB = s.PastDelivery(t, s.ofB.ID, "beta")
	return s
}

// unchanged requires that webhook w is as it was made, with n deliveries.
func (s hooksApp) unchanged(t *testing.T, w webhooks.Webhook, n int) {
	t.Helper()
	got, log, err := s.Webhooks.Get(context.Background(), webhooks.Caller{Username: "root", Role: auth.Admin}, w.ID)
	require.NoError(t, err, "webhook %d still exists", w.ID)
	require.Equal(t, w.URL, got.URL)
	require.Equal(t, w.Events, got.Events)
	require.Len(t, log, n, "webhook %d has no new delivery", w.ID)
}

// TestATeamsMembersCannotTouchOrSeeAnotherTeamsWebhook is the attack: ada
// and otto, admin and operator of team a, list, read, edit (retargeting it
// to their server), delete and redeliver team b's webhook, and the global
// one, by id, through the pages (crafted POSTs with their CSRF token) and
// the REST API. Each answer is the 404 of an id nobody used, the lists show
// a's webhook only, and nothing changed.
func TestATeamsMembersCannotTouchOrSeeAnotherTeamsWebhook(t *testing.T) {
	t.Parallel()
	s := setupHooks(t)
	for _, who := range []struct {
		v     handlerstest.Visitor
		token string
	}{{s.ada, s.adaToken}, {s.otto, s.ottoToken}} {
		for _, w := range []webhooks.Webhook{s.ofB, s.global} {
			one := fmt.Sprintf("/webhooks/%d", w.ID)
			unknown := fmt.Sprintf("There is no webhook %d.", w.ID)
			edit := url.Values{"url": {"https://attacker.example/"}, "events": {"started"}, "format": {"json"}}
			for _, page := range []struct {
				method, path string
				form         url.Values
			}{
				{http.MethodGet, one, nil},
				{http.MethodPost, one, edit},
				{http.MethodPost, one + "/delete", url.Values{}},
				{http.MethodPost, fmt.Sprintf("%s/deliveries/%d/redeliver", one, s.pastOfB), url.Values{}},
			} {
				rec := s.Request(who.v, page.method, page.path, page.form)
				require.Equal(t, http.StatusNotFound, rec.Code, "%s %s: %s", page.method, page.path, rec.Body.String())
				require.Contains(t, rec.Body.String(), unknown, "%s %s answers as an unknown id", page.method, page.path)
			}
			api := "/api/v1" + one
			for _, op := range []struct {
				method, path string
				body         any
			}{
				{http.MethodGet, api, nil},
				{http.MethodPatch, api, oapi.WebhookChange{Url: ptr("https://attacker.example/")}},
				{http.MethodDelete, api, nil},
				{http.MethodPost, fmt.Sprintf("%s/deliveries/%d/redeliver", api, s.pastOfB), nil},
			} {
				rec := s.Call(t, who.token, op.method, op.path, op.body)
				require.Equal(t, http.StatusNotFound, rec.Code, "%s %s: %s", op.method, op.path, rec.Body.String())
				require.Contains(t, rec.Body.String(), unknown, "%s %s answers as an unknown id", op.method, op.path)
			}
		}

		rec := s.Request(who.v, http.MethodGet, "/webhooks", nil)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Equal(t, []string{s.ofA.URL}, handlerstest.Texts(handlerstest.Parse(t, rec).Find(`[data-testid="webhook-url"]`)), "the page lists a's webhook only")
		rec = s.Call(t, who.token, http.MethodGet, "/api/v1/webhooks", nil)
		require.Equal(t, http.StatusOK, rec.Code)
		var list struct{ Items []oapi.Webhook }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &list))
		require.Len(t, list.Items, 1, "the API lists a's webhook only")
		require.Equal(t, s.ofA.ID, list.Items[0].Id)
		require.Equal(t, ptr("a"), list.Items[0].Team)
	}
	s.unchanged(t, s.ofB, 1)
	s.unchanged(t, s.global, 0)
}

// TestATeamsAdminMakesWebhooksForTheirTeamOnly: ada, admin of team a,
// makes a webhook for a (page and API); one for team b, or a global one, is
// refused at the field team and makes nothing. The audit entries of her
// changes carry team a, her deletion's too.
func TestATeamsAdminMakesWebhooksForTheirTeamOnly(t *testing.T) {
	t.Parallel()
	s := setupHooks(t)
	ctx := context.Background()
	for _, team := range []string{"b", ""} {
		form := url.Values{"url": {"https://hooks.example/new"}, "secret": {hookSecret}, "events": {"failed"}, "format": {"json"}, "team": {team}}
		rec := s.Request(s.ada, http.MethodPost, "/webhooks", form)
		require.Equal(t, http.StatusUnprocessableEntity, rec.Code, "team %q: %s", team, rec.Body.String())
		require.Contains(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="error-team"]`)), "choose one of your teams (a)")
		body := oapi.NewWebhook{Url: "https://hooks.example/new", Secret: hookSecret, Events: []oapi.WebhookEvent{oapi.WebhookEventFailed}, Team: ptr(team)}
		rec = s.Call(t, s.adaToken, http.MethodPost, "/api/v1/webhooks", body)
		require.Equal(t, http.StatusBadRequest, rec.Code, "team %q: %s", team, rec.Body.String())
		var problem struct{ Fields map[string]string }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &problem))
		require.Contains(t, problem.Fields["team"], "choose one of your teams (a)")
	}
	all, err := s.Webhooks.List(ctx, webhooks.Caller{Username: "root", Role: auth.Admin})
	require.NoError(t, err)
	require.Len(t, all, 3, "nothing was made")

	rec := s.Request(s.ada, http.MethodGet, "/webhooks", nil)
	require.Equal(t, []string{"a"}, handlerstest.Texts(handlerstest.Parse(t, rec).Find(`[data-testid="team"] option`)), "the form offers her team only")
	body := oapi.NewWebhook{Url: "https://hooks.example/mine", Secret: hookSecret, Events: []oapi.WebhookEvent{oapi.WebhookEventFailed}, Team: ptr("a")}
	rec = s.Call(t, s.adaToken, http.MethodPost, "/api/v1/webhooks", body)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var made oapi.Webhook
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &made))
	require.Equal(t, ptr("a"), made.Team)
	rec = s.Request(s.ada, http.MethodPost, fmt.Sprintf("/webhooks/%d/delete", made.Id), url.Values{})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())

	var teams []*int64
	rows, err := s.Pool.Query(ctx, "SELECT team_id FROM audit_entries WHERE target_kind = 'webhook' AND target_name = $1 AND outcome = 'allowed' ORDER BY id", fmt.Sprint(made.Id))
	require.NoError(t, err)
	for rows.Next() {
		var team *int64
		require.NoError(t, rows.Scan(&team))
		teams = append(teams, team)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []*int64{&s.teamA, &s.teamA}, teams, "the creation's and the deletion's entries carry team a")
}

// TestATeamsOperatorsAndReadOnlyMembersReadItsWebhooksButChangeNothing:
// otto (operator in a) and rob (read-only in a) read a's webhook and its
// page, which offers them no change; an edit, a deletion, a redelivery and a
// new webhook for a, through crafted page requests and the API, are refused
// (403) and change nothing.
func TestATeamsOperatorsAndReadOnlyMembersReadItsWebhooksButChangeNothing(t *testing.T) {
	t.Parallel()
	s := setupHooks(t)
	past := s.PastDelivery(t, s.ofA.ID, "alpha")
	one := fmt.Sprintf("/webhooks/%d", s.ofA.ID)
	for _, who := range []struct {
		v     handlerstest.Visitor
		token string
	}{{s.otto, s.ottoToken}, {s.rob, s.robToken}} {
		rec := s.Request(who.v, http.MethodGet, one, nil)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		doc := handlerstest.Parse(t, rec)
		require.Equal(t, "a", handlerstest.Text(doc.Find(`[data-testid="team"]`)))
		require.NotEmpty(t, doc.Find(fmt.Sprintf(`[data-testid="delivery-%d"]`, past)).Nodes, "the delivery log is shown")
		for _, change := range []string{"edit-webhook", "delete-webhook", "redeliver"} {
			require.Empty(t, doc.Find(`[data-testid="`+change+`"]`).Nodes, "no %s", change)
		}
		require.NotEmpty(t, doc.Find(`[data-testid="read-only-webhook"]`).Nodes)
		rec = s.Request(who.v, http.MethodGet, "/webhooks", nil)
		require.Empty(t, handlerstest.Parse(t, rec).Find(`[data-testid="new-webhook-form"]`).Nodes, "no form to add one")

		edit := url.Values{"url": {s.ofA.URL}, "events": {"started"}, "format": {"json"}}
		for _, page := range []struct {
			path string
			form url.Values
		}{
			{one, edit},
			{one + "/delete", url.Values{}},
			{fmt.Sprintf("%s/deliveries/%d/redeliver", one, past), url.Values{}},
			{"/webhooks", url.Values{"url": {"https://hooks.example/new"}, "secret": {hookSecret}, "events": {"failed"}, "team": {"a"}}},
		} {
			rec := s.Request(who.v, http.MethodPost, page.path, page.form)
			require.Equal(t, http.StatusForbidden, rec.Code, "POST %s: %s", page.path, rec.Body.String())
		}
		api := "/api/v1" + one
		for _, op := range []struct {
			method, path string
			body         any
		}{
			{http.MethodPatch, api, oapi.WebhookChange{Events: &[]oapi.WebhookEvent{oapi.WebhookEventStarted}}},
			{http.MethodDelete, api, nil},
			{http.MethodPost, fmt.Sprintf("%s/deliveries/%d/redeliver", api, past), nil},
			{http.MethodPost, "/api/v1/webhooks", oapi.NewWebhook{Url: "https://hooks.example/new", Secret: hookSecret, Events: []oapi.WebhookEvent{oapi.WebhookEventFailed}, Team: ptr("a")}},
		} {
			rec := s.Call(t, who.token, op.method, op.path, op.body)
			require.Equal(t, http.StatusForbidden, rec.Code, "%s %s: %s", op.method, op.path, rec.Body.String())
		}
		rec = s.Call(t, who.token, http.MethodGet, api, nil)
		require.Equal(t, http.StatusOK, rec.Code, "they read it through the API")
		require.NotContains(t, rec.Body.String(), hookSecret)
	}
	s.unchanged(t, s.ofA, 1)
	all, err := s.Webhooks.List(context.Background(), webhooks.Caller{Username: "root", Role: auth.Admin})
	require.NoError(t, err)
	require.Len(t, all, 3, "nothing was made")
}

// ptr is a pointer to v, for the API's optional fields.
func ptr[T any](v T) *T { return &v }
