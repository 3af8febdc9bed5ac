package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// TestDeploymentListFiltersWithAShareableAddress: the search and filters
// narrow the list, the pager keeps them, htmx gets the results alone with
// the filter's address, and the read-only user sees what an operator sees.
func TestDeploymentListFiltersWithAShareableAddress(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	for _, name := range []string{"shop", "shop-eu", "blog"} {
		d.Install(t, handlerstest.HelloInstall(name))
	}
	orders := handlerstest.PgInstall("orders")
	orders.Namespace = "data"
	d.Install(t, orders)

	names := func(path string) []string {
		t.Helper()
		rec := d.Request(d.Reader, http.MethodGet, path, nil)
		require.Equal(t, http.StatusOK, rec.Code, path)
		got := handlerstest.Texts(handlerstest.Parse(t, rec).Find(`[data-testid="deployment-link"]`))
		operator := handlerstest.Texts(handlerstest.Parse(t, d.Request(d.Operator, http.MethodGet, path, nil)).Find(`[data-testid="deployment-link"]`))
		require.Equal(t, operator, got, "the read-only user sees the operator's list")
		return got
	}
	require.Equal(t, []string{"blog", "orders", "shop", "shop-eu"}, names("/deployments"))
	require.Equal(t, []string{"shop", "shop-eu"}, names("/deployments?q=Shop"))
	require.Equal(t, []string{"orders"}, names("/deployments?driver=postgresql"))
	require.Equal(t, []string{"orders"}, names("/deployments?namespace=data"))
	require.Equal(t, []string{"shop-eu"}, names("/deployments?q=shop&driver=hello-web&namespace=shop-eu"))

	doc := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments?q=shop&driver=hello-web", nil))
	require.Equal(t, "shop", doc.Find(`[data-testid="deployment-filter-q"]`).AttrOr("value", ""), "the form shows the filter")
	require.Equal(t, "hello-web", doc.Find(`[data-testid="deployment-filter-driver"] option[selected]`).AttrOr("value", ""))
	require.Contains(t, handlerstest.Texts(doc.Find(`[data-testid="deployment-filter-driver"] option`)), "PostgreSQL", "every driver of the catalogue")
	require.Contains(t, handlerstest.Texts(doc.Find(`[data-testid="deployment-filter-health"] option`)), "Degraded")
	form := doc.Find(`[data-testid="deployment-filters"]`)
	require.Equal(t, "get", form.AttrOr("method", ""), "without JavaScript the filters are a plain GET form")
	require.Equal(t, "true", form.AttrOr("hx-push-url", ""))

	rec := d.Request(d.Reader, http.MethodGet, "/deployments?q=shop&driver=&namespace=&health=&drifted=", nil, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "/deployments?q=shop", rec.Header().Get("HX-Push-Url"), "the address to share leaves out the empty fields")
	frag := handlerstest.Parse(t, rec)
	require.Zero(t, frag.Find("h1").Length(), "htmx gets the results, not the page")
	require.Equal(t, []string{"shop", "shop-eu"}, handlerstest.Texts(frag.Find(`[data-testid="deployment-link"]`)))

	empty := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments?q=nothing-like-it", nil))
	require.Contains(t, handlerstest.Text(empty.Find(`[data-testid="deployments-no-match"]`)), "No deployment matches")
	require.Equal(t, "/deployments", empty.Find(`[data-testid="deployments-reset"]`).AttrOr("href", ""))
	require.Zero(t, empty.Find(`[data-testid="deployments-empty"]`).Length(), "not the first-run message")
	require.Empty(t, names("/deployments?health=Degraded"), "no health read yet: nothing is Degraded")
	require.Equal(t, []string{"blog", "orders", "shop", "shop-eu"}, names("/deployments?drifted=false"), "no drift read: none drifted")
}

// TestDeploymentListPagerKeepsTheFilter: the next page of a filtered list
// is of the same filter.
func TestDeploymentListPagerKeepsTheFilter(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	for _, name := range []string{"a-shop", "blog", "b-shop"} {
		d.Install(t, handlerstest.HelloInstall(name))
	}
	var seen []string
	path := "/deployments?limit=1&q=shop"
	for path != "" {
		doc := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, path, nil))
		seen = append(seen, handlerstest.Texts(doc.Find(`[data-testid="deployment-link"]`))...)
		path = doc.Find(`[data-testid="deployments-next"]`).AttrOr("href", "")
		if path != "" {
			u, err := url.Parse(path)
			require.NoError(t, err)
			require.Equal(t, "shop", u.Query().Get("q"), "the next page keeps the filter")
			require.Equal(t, "1", u.Query().Get("limit"), "and the page size")
			require.Equal(t, path, doc.Find(`[data-testid="deployments-next"]`).AttrOr("hx-get", ""))
		}
		require.Less(t, len(seen), 10)
	}
	require.Equal(t, []string{"a-shop", "b-shop"}, seen)
}

// TestDeploymentListPagesBackToTheFirstPage: Previous goes back a page,
// with the filter and the page size, and from the second page lands on the
// first one, at the list's own address, without a Previous; htmx gets the
// rows alone and the address of the page it shows.
func TestDeploymentListPagesBackToTheFirstPage(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	for _, name := range []string{"a-shop", "b-shop", "blog", "c-shop", "d-shop"} {
		d.Install(t, handlerstest.HelloInstall(name))
	}
	type visit struct {
		names      []string
		prev, next string
	}
	open := func(path string) visit {
		t.Helper()
		rec := d.Request(d.Reader, http.MethodGet, path, nil)
		require.Equal(t, http.StatusOK, rec.Code, path)
		doc := handlerstest.Parse(t, rec)
		return visit{handlerstest.Texts(doc.Find(`[data-testid="deployment-link"]`)),
			doc.Find(`[data-testid="deployments-previous"]`).AttrOr("href", ""), doc.Find(`[data-testid="deployments-next"]`).AttrOr("href", "")}
	}
	first := open("/deployments?limit=2&q=shop")
	require.Equal(t, []string{"a-shop", "b-shop"}, first.names)
	require.Empty(t, first.prev, "the first page has no Previous")
	second := open(first.next)
	require.Equal(t, []string{"c-shop", "d-shop"}, second.names)
	require.Empty(t, second.next, "the last page has no Next")
	u, err := url.Parse(second.prev)
	require.NoError(t, err)
	require.Equal(t, url.Values{"q": {"shop"}, "limit": {"2"}, "before": {u.Query().Get("before")}}, u.Query(), "Previous keeps the filter and the page size")

	back := open(second.prev)
	require.Equal(t, first, back, "Previous lands on the first page")

	rec := d.Request(d.Reader, http.MethodGet, second.prev, nil, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "/deployments?limit=2&q=shop", rec.Header().Get("HX-Push-Url"), "the first page's own address")
	require.Equal(t, []string{"a-shop", "b-shop"}, handlerstest.Texts(handlerstest.Parse(t, rec).Find(`[data-testid="deployment-link"]`)))

	threePages := open("/deployments?limit=2")
	threePages = open(open(threePages.next).next)
	require.Equal(t, []string{"d-shop"}, threePages.names)
	require.Equal(t, []string{"blog", "c-shop"}, open(threePages.prev).names, "from the third page, the second")

	for _, bad := range []string{"/deployments?before=nowhere", "/deployments?before=live:a:1&after=live:b:2"} {
		rec := d.Request(d.Reader, http.MethodGet, bad, nil)
		require.Equal(t, http.StatusBadRequest, rec.Code, bad)
	}
}

// TestDeploymentListAnswersHostileFiltersCleanly: SQL's metacharacters are
// searched as text, and a filter no deployment could match is said on the
// page with a 400, never a server error.
func TestDeploymentListAnswersHostileFiltersCleanly(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.HelloInstall("shop"))
	for _, q := range []string{"%", "_", "'; DROP TABLE deployments; --", `\`, "sh%p", "shop' OR '1'='1"} {
		rec := d.Request(d.Reader, http.MethodGet, "/deployments?"+url.Values{"q": {q}}.Encode(), nil)
		require.Equal(t, http.StatusOK, rec.Code, q)
		doc := handlerstest.Parse(t, rec)
		require.Zero(t, doc.Find(`[data-testid="deployment-link"]`).Length(), q)
		require.Equal(t, q, doc.Find(`[data-testid="deployment-filter-q"]`).AttrOr("value", ""), "shown back as text")
	}
	for _, bad := range []url.Values{
		{"q": {strings.Repeat("x", 10_000)}},
		{"namespace": {strings.Repeat("'", 10_000)}},
		{"health": {"<script>alert(1)</script>"}},
		{"drifted": {"maybe"}},
	} {
		rec := d.Request(d.Reader, http.MethodGet, "/deployments?"+bad.Encode(), nil)
		require.Equal(t, http.StatusBadRequest, rec.Code, "%.60v", bad)
		doc := handlerstest.Parse(t, rec)
		require.NotEmpty(t, handlerstest.Text(doc.Find(`[data-testid="deployments-problem"]`)))
		require.Equal(t, "/deployments", doc.Find(`[data-testid="deployments-problem"] a`).AttrOr("href", ""))
	}
	require.Equal(t, []string{"shop"}, handlerstest.Texts(handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments", nil)).Find(`[data-testid="deployment-link"]`)))
}
