package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/drivers/bundled/bundledtest"
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

// TestTheUpgradeFormOffersOnlyTheVersionsTheTeamMayDeploy: team a may
// deploy drivers labelled tier=stateless; hello-web 1.1.0 is labelled
// tier=edge and 1.2.0 stateless again. amy's upgrade form of alpha offers
// 1.2.0 and the current 1.0.0, never 1.1.0; a review sent for 1.1.0 anyway
// comes back with why at the field and the same choices. A global operator
// upgrading a deployment of the team default is offered every version.
func TestTheUpgradeFormOffersOnlyTheVersionsTheTeamMayDeploy(t *testing.T) {
	t.Parallel()
	s := setupTeams(t)
	ctx := context.Background()
	require.NoError(t, s.Deps.Teams.SetPolicy(ctx, "a", teams.Policy{Drivers: []string{"label:tier=stateless"}}))
	for version, tier := range map[string]string{"1.1.0": "edge", "1.2.0": "stateless"} {
		fsys := bundledtest.AsVersion(t, "hello-web", version)
		fsys["driver.styrmin.yml"] = &fstest.MapFile{Data: []byte(strings.Replace(string(fsys["driver.styrmin.yml"].Data), "tier: stateless", "tier: "+tier, 1))}
		_, err := s.Catalog.ImportFS(ctx, fsys, ".", "test")
		require.NoError(t, err)
	}
	versions := func(doc *goquery.Document) []string {
		var out []string
		doc.Find(`select[name="driver_version"] option`).Each(func(_ int, o *goquery.Selection) { out = append(out, o.AttrOr("value", "")) })
		return out
	}

	rec := s.Request(s.amy, http.MethodGet, "/deployments/alpha/upgrade", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, []string{"1.2.0", "1.0.0"}, versions(handlerstest.Parse(t, rec)))

	form := helloForm("alpha", "")
	form.Set("driver_version", "1.1.0")
	rec = s.Request(s.amy, http.MethodPost, "/deployments/alpha/upgrade/review", form)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "the team a may not deploy version 1.1.0 of the driver hello-web: it may deploy label:tier=stateless; keep the current version, or ask an admin to allow the driver for the team",
		handlerstest.Text(doc.Find(`#deploy-driver-version-error`)))
	require.Equal(t, []string{"1.2.0", "1.0.0"}, versions(doc))

	s.Install(t, handlerstest.HelloInstall("blog"))
	rec = s.Request(s.Operator, http.MethodGet, "/deployments/blog/upgrade", nil)
	require.Equal(t, []string{"1.2.0", "1.1.0", "1.0.0"}, versions(handlerstest.Parse(t, rec)), "the team default has no driver rule")
}

// TestTheCatalogueShowsAMemberTheDriversOfTheirTeams: team a may deploy
// Redis only. amy and rob, whose own role is member and who are in a, find
// Redis alone in the catalogue, page (said so) and API, and so does a token
// narrowed to a of an admin; a member of no team finds none, and is told
// why; users with a role of their own see every driver, from the same
// cache of rendered grids.
func TestTheCatalogueShowsAMemberTheDriversOfTheirTeams(t *testing.T) {
	t.Parallel()
	s := setupTeams(t)
	ctx := context.Background()
	require.NoError(t, s.Deps.Teams.SetPolicy(ctx, "a", teams.Policy{Drivers: []string{"redis"}}))
	cards := func(v handlerstest.Visitor, headers ...string) (*goquery.Document, []string) {
		t.Helper()
		rec := s.Request(v, http.MethodGet, "/drivers", nil, headers...)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		doc := handlerstest.Parse(t, rec)
		var names []string
		doc.Find(`[data-testid="driver-card"]`).Each(func(_ int, c *goquery.Selection) { names = append(names, c.AttrOr("data-driver", "")) })
		return doc, names
	}
	listed := func(token string) []string {
		t.Helper()
		rec := s.Call(t, token, http.MethodGet, "/api/v1/drivers", nil)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var page struct{ Items []struct{ Name string } }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &page))
		var names []string
		for _, d := range page.Items {
			names = append(names, d.Name)
		}
		return names
	}

	_, every := cards(s.Reader)
	require.Greater(t, len(every), 1)
	require.Contains(t, every, "hello-web")
	for _, v := range []handlerstest.Visitor{s.amy, s.rob} {
		doc, names := cards(v)
		require.Equal(t, []string{"redis"}, names)
		require.NotEmpty(t, doc.Find(`[data-testid="driver-teams-only"]`).Nodes, "the page says it shows the teams' drivers")
		_, names = cards(v, "HX-Request", "true", "HX-Target", "driver-grid")
		require.Equal(t, []string{"redis"}, names, "the grid alone, for htmx")
	}
	require.Equal(t, []string{"redis"}, listed(s.amyToken))
	require.Equal(t, []string{"redis"}, listed(s.robToken))
	_, gus := s.As(t, "gus", auth.Admin)
	require.NoError(t, s.Deps.Teams.SetMember(ctx, "a", gus.ID, auth.Operator))
	require.Equal(t, []string{"redis"}, listed(teamToken(t, s, gus, "a")), "a token narrowed to a")
	require.Len(t, listed(s.TokenOf(t, gus)), len(every), "gus's own token, an admin's")

	loner, _ := s.As(t, "lou", auth.Member)
	doc, names := cards(loner)
	require.Empty(t, names)
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="driver-empty"]`)), "None of your teams may deploy a driver")

	for _, v := range []handlerstest.Visitor{s.Reader, s.Operator} {
		doc, names := cards(v)
		require.Equal(t, every, names, "a role of one's own sees every driver")
		require.Empty(t, doc.Find(`[data-testid="driver-teams-only"]`).Nodes)
	}
	require.Len(t, listed(s.TokenFor(t, "rea", auth.ReadOnly)), len(every))
}
