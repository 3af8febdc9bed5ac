package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/teams"
)

// requireRefusedAt deploys Hello Web as amy named name into namespace and
// team a through the deploy form and the REST API, and requires both to be
// refused with why at field, and nothing made.
func requireRefusedAt(t *testing.T, s teamsApp, name, namespace, field, why string) {
	t.Helper()
	form := helloForm(name, "a")
	form.Set("namespace", namespace)
	rec := s.Request(s.amy, http.MethodPost, "/drivers/hello-web/deploy", form)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
	require.Equal(t, why, handlerstest.Text(handlerstest.Parse(t, rec).Find(`#deploy-`+field+`-error`)), "the form says why at the field")
	rec = s.Call(t, s.amyToken, http.MethodPost, "/api/v1/deployments", map[string]any{
		"driver": "hello-web", "driver_version": "1.0.0", "name": name + "-api", "namespace": namespace, "team": "a",
	})
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	var problem struct{ Fields map[string]string }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &problem))
	require.Equal(t, why, problem.Fields[field], "the API says why at the field")
	for _, made := range []string{name, name + "-api"} {
		_, err := s.Service.Get(context.Background(), made)
		require.Error(t, err, "nothing is made, nothing queued")
	}
}

// TestAnOperatorCannotDeployIntoAnotherTeamsNamespace is the attack: amy,
// an operator in team a, deploys into beta's namespace, which team b's
// deployment holds, through the page and the API: refused at the namespace
// field, nothing made. An admin may put team a's deployment there.
func TestAnOperatorCannotDeployIntoAnotherTeamsNamespace(t *testing.T) {
	t.Parallel()
	s := setupTeams(t)

	requireRefusedAt(t, s, "shop", "beta", "namespace", "namespace beta belongs to team b's deployments; choose a namespace of your team")

	admin, _ := s.As(t, "ada", auth.Admin)
	form := helloForm("shared", "a")
	form.Set("namespace", "beta")
	rec := s.Request(admin, http.MethodPost, "/drivers/hello-web/deploy", form)
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
}

// TestAnOperatorCannotDeployADriverTheirTeamMayNotUse is the attack: team
// a may deploy Redis only; amy, its operator, deploys Hello Web into it
// through the page and the API: refused at the team field, nothing made.
// Her deploy form of Hello Web offers no team and says why; a namespace
// outside team a's is refused with what the team allows.
func TestAnOperatorCannotDeployADriverTheirTeamMayNotUse(t *testing.T) {
	t.Parallel()
	s := setupTeams(t)
	require.NoError(t, s.Deps.Teams.SetPolicy(context.Background(), "a", teams.Policy{Drivers: []string{"redis"}, Namespaces: []string{"a-*"}}))

	rec := s.Request(s.amy, http.MethodGet, "/drivers/hello-web/deploy", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc := handlerstest.Parse(t, rec)
	require.Empty(t, doc.Find(`[data-testid="team-select"] option`).Nodes, "no team of amy's may deploy Hello Web")
	require.Equal(t, "None of your teams may deploy the driver hello-web (a may deploy redis); ask an admin to allow it for one of them.", handlerstest.Text(doc.Find(`#deploy-team-error`)))

	requireRefusedAt(t, s, "a-shop", "a-shop", "team", "the team a may not deploy the driver hello-web: it may deploy redis; choose another team, or ask an admin to allow the driver for the team")

	require.NoError(t, s.Deps.Teams.SetPolicy(context.Background(), "a", teams.Policy{Namespaces: []string{"a-*"}}))
	requireRefusedAt(t, s, "shop", "shop", "namespace", "namespace shop is not allowed for the team a: its deployments may go into a-*; choose one of those, or ask an admin to change the team's namespaces")
	form := helloForm("a-shop", "a")
	form.Set("namespace", "a-shop")
	rec = s.Request(s.amy, http.MethodPost, "/drivers/hello-web/deploy", form)
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String(), "a namespace of the team's")
}
