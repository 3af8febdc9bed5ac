package api_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
)

// deploymentNames reads every page of a deployment list, limit at a time,
// and returns the names in order with how many pages it took.
func deploymentNames(t *testing.T, d handlerstest.DeployApp, token, query string, limit int) (names []string, pages int, items []api.DeploymentSummary) {
	t.Helper()
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	for {
		if query != "" {
			extra, err := url.ParseQuery(query)
			require.NoError(t, err)
			for k, v := range extra {
				q[k] = v
			}
		}
		page := decoded[api.DeploymentPage](t, d.Call(t, token, http.MethodGet, "/api/v1/deployments?"+q.Encode(), nil), http.StatusOK)
		pages++
		require.LessOrEqual(t, len(page.Items), limit)
		for _, it := range page.Items {
			names = append(names, it.Name)
		}
		items = append(items, page.Items...)
		if page.NextCursor == "" {
			return names, pages, items
		}
		q.Set("cursor", page.NextCursor)
	}
}

func TestAPIDeploymentsComeLiveByNameThenDeleted(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	ctx := context.Background()
	for _, name := range []string{"gamma", "alpha", "delta", "beta"} {
		d.Install(t, handlerstest.HelloInstall(name))
	}
	stop, err := d.Service.Queue(ctx, &deployment.Stop{Name: "beta", By: "olga"})
	require.NoError(t, err)
	gone, err := d.Service.Get(ctx, "alpha")
	require.NoError(t, err)
	require.NoError(t, db.New(d.Pool).MarkDeploymentDeleted(ctx, gone.ID))
	token := d.TokenFor(t, "reta", auth.ReadOnly)

	names, pages, items := deploymentNames(t, d, token, "", 2)
	require.Equal(t, []string{"beta", "delta", "gamma"}, names)
	require.Equal(t, 2, pages)
	beta := items[0]
	require.Equal(t, "hello-web", beta.Driver)
	require.Equal(t, "1.0.0", beta.DriverVersion)
	require.Equal(t, "olga", beta.CreatedBy)
	require.NotNil(t, beta.LastTask)
	require.Equal(t, stop.TaskID, beta.LastTask.Id, "the newest task")
	require.Equal(t, api.TaskKind(deployment.KindStop), beta.LastTask.Kind)
	require.Equal(t, api.TaskStatus(executor.TaskQueued), beta.LastTask.Status)

	d.Install(t, handlerstest.HelloInstall("alpha"))
	again, err := d.Service.Get(ctx, "alpha")
	require.NoError(t, err)
	require.NoError(t, db.New(d.Pool).MarkDeploymentDeleted(ctx, again.ID))
	names, _, items = deploymentNames(t, d, token, "include_deleted=true", 1)
	require.Equal(t, []string{"beta", "delta", "gamma", "alpha", "alpha"}, names, "deleted ones last, each once")
	require.Nil(t, items[0].DeletedAt)
	require.NotNil(t, items[3].DeletedAt)
	require.True(t, items[3].CreatedAt.After(items[4].CreatedAt), "a name deleted twice: the newest first")

	rec := d.Call(t, token, http.MethodGet, "/api/v1/deployments?cursor=bm90LWEtY3Vyc29y", nil)
	require.Equal(t, http.StatusBadRequest, rec.Code, "a cursor the list did not give out")
}

func TestAPIDeploymentShowsParametersButNoSecretAndSaysTheClusterCannotBeRead(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	ctx := context.Background()
	d.Install(t, handlerstest.PgInstall("orders"))
	stored, err := d.Service.Get(ctx, "orders")
	require.NoError(t, err)
	v, err := d.Catalog.Get(ctx, "postgresql", "1.2.0")
	require.NoError(t, err)
	token := d.TokenFor(t, "reta", auth.ReadOnly)

	rec := d.Call(t, token, http.MethodGet, "/api/v1/deployments/orders", nil)
	require.NotContains(t, rec.Body.String(), handlerstest.PgSecret)
	got := decoded[api.Deployment](t, rec, http.StatusOK)
	require.Equal(t, "orders", got.Name)
	require.Equal(t, stored.Namespace, got.Namespace)
	require.Equal(t, stored.Parameters, got.Parameters)
	require.NotContains(t, got.Parameters, "password")
	require.Equal(t, []string{"password"}, got.SecretsSet)
	require.NotNil(t, got.ClusterError, "this server has no cluster")
	require.Contains(t, *got.ClusterError, "No Kubernetes cluster is configured")
	require.Nil(t, got.ImageSubstitutions, "no local cluster, no substitution")
	require.Len(t, got.Components, len(v.Driver.Spec.Components), "the declared components, without their readiness")
	for _, c := range v.Driver.Spec.Components {
		require.Contains(t, got.Components, c.Name)
		require.Nil(t, got.Components[c.Name].Ready)
		require.False(t, got.Components[c.Name].Stopped)
	}
	require.NotNil(t, got.LastTask)
	require.Equal(t, api.TaskKind(deployment.KindInstall), got.LastTask.Kind)
	require.Empty(t, got.Revisions, "nothing has run")

	rec = d.Call(t, token, http.MethodGet, "/api/v1/deployments/nope", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
	p := problemOf(t, rec)
	require.Equal(t, api.ProblemCode("not_found"), p.Code)
	require.Contains(t, p.Detail, `"nope"`)
}

func TestAPIDeploymentSaysWhatRunsOnTheLocalCluster(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeploymentsOn(t, handlerstest.FakeCluster(t, handlerstest.PgSubstituted("orders", handlerstest.PgSubstitutions)...))
	d.Install(t, handlerstest.PgInstall("orders"))
	token := d.TokenFor(t, "reta", auth.ReadOnly)

	got := decoded[api.Deployment](t, d.Call(t, token, http.MethodGet, "/api/v1/deployments/orders", nil), http.StatusOK)
	require.NotNil(t, got.ImageSubstitutions)
	image := "styrmin.local/postgres:15"
	require.Equal(t, []api.ImageSubstitution{
		{Requested: "postgres:16.4", Image: &image, Runs: "Debian PostgreSQL 15.14"},
		{Requested: "quay.io/prometheuscommunity/postgres-exporter:v0.15.0", Runs: "no image on the local cluster stands in for quay.io/prometheuscommunity/postgres-exporter:v0.15.0; the local cluster builds postgres, redis"},
	}, *got.ImageSubstitutions, "each once, though two pods carry them")
}

func TestAPIDeploymentsFilterAPageAtATime(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	for _, name := range []string{"shop", "blog", "shop-eu", "my-shop"} {
		d.Install(t, handlerstest.HelloInstall(name))
	}
	orders := handlerstest.PgInstall("orders")
	orders.Namespace = "data"
	d.Install(t, orders)
	token := d.TokenFor(t, "reta", auth.ReadOnly)

	for _, c := range []struct {
		query string
		want  []string
	}{
		{"q=SHOP", []string{"my-shop", "shop", "shop-eu"}},
		{"driver=postgresql", []string{"orders"}},
		{"namespace=data", []string{"orders"}},
		{"q=shop&namespace=shop-eu", []string{"shop-eu"}},
		{"health=Degraded", nil},
		{"drifted=true", nil},
		{"drifted=false&driver=hello-web", []string{"blog", "my-shop", "shop", "shop-eu"}},
		{"q=" + url.QueryEscape("%' OR 1=1 --"), nil},
	} {
		names, pages, _ := deploymentNames(t, d, token, c.query, 1)
		require.Equal(t, c.want, names, c.query)
		require.Equal(t, max(1, len(c.want)), pages, "%s: each page continues the filter", c.query)
	}
	for _, bad := range []string{"q=" + strings.Repeat("x", 10_000), "health=Sick", "drifted=maybe"} {
		rec := d.Call(t, token, http.MethodGet, "/api/v1/deployments?"+bad, nil)
		require.Equal(t, http.StatusBadRequest, rec.Code, "%.40s", bad)
		require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"), "%.40s", bad)
	}
}

func TestAPIDeploymentsPageBackWithPrevCursor(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	for _, name := range []string{"a-shop", "b-shop", "blog", "c-shop", "d-shop", "e-shop"} {
		d.Install(t, handlerstest.HelloInstall(name))
	}
	token := d.TokenFor(t, "reta", auth.ReadOnly)
	list := func(cursor string) api.DeploymentPage {
		t.Helper()
		q := url.Values{"limit": {"2"}, "q": {"shop"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		return decoded[api.DeploymentPage](t, d.Call(t, token, http.MethodGet, "/api/v1/deployments?"+q.Encode(), nil), http.StatusOK)
	}
	names := func(p api.DeploymentPage) []string {
		out := []string{}
		for _, it := range p.Items {
			out = append(out, it.Name)
		}
		return out
	}
	first := list("")
	require.Equal(t, []string{"a-shop", "b-shop"}, names(first))
	require.Empty(t, first.PrevCursor, "the first page has no previous one")
	second := list(first.NextCursor)
	third := list(second.NextCursor)
	require.Equal(t, []string{"e-shop"}, names(third))
	require.Empty(t, third.NextCursor)

	back := list(third.PrevCursor)
	require.Equal(t, []string{"c-shop", "d-shop"}, names(back), "prev_cursor goes back a page, with the filter")
	require.Equal(t, second, back)
	require.Equal(t, first, list(back.PrevCursor), "and back to the first page")
}
