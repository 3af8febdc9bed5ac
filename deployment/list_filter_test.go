package deployment_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/health"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release/releasetest"
)

// listNames lists with o, every page, and returns the names in order and
// how many pages it took.
func listNames(t *testing.T, svc *deployment.Service, o deployment.ListOptions) ([]string, int) {
	t.Helper()
	var names []string
	pages := 0
	for {
		page, err := svc.List(context.Background(), o)
		require.NoError(t, err)
		pages++
		for _, s := range page.Items {
			names = append(names, s.Name)
		}
		if o.After = page.Next; o.After == nil {
			return names, pages
		}
	}
}

// pagesForthAndBack lists with o a page at a time to the last page, then
// back with each page's Prev to the first, and returns the names of each
// page the way forth and the way back.
func pagesForthAndBack(t *testing.T, svc *deployment.Service, o deployment.ListOptions) (forth, back [][]string) {
	t.Helper()
	names := func(page deployment.ListPage) []string {
		var out []string
		for _, s := range page.Items {
			out = append(out, s.Name)
		}
		return out
	}
	page, err := svc.List(context.Background(), o)
	require.NoError(t, err)
	require.Nil(t, page.Prev, "the first page has no previous one")
	forth = append(forth, names(page))
	for page.Next != nil {
		o.After, o.Before = page.Next, nil
		page, err = svc.List(context.Background(), o)
		require.NoError(t, err)
		forth = append(forth, names(page))
		require.Less(t, len(forth), 20)
	}
	back = append(back, names(page))
	for page.Prev != nil {
		o.After, o.Before = nil, page.Prev
		page, err = svc.List(context.Background(), o)
		require.NoError(t, err)
		back = append(back, names(page))
		require.Less(t, len(back), 20)
	}
	return forth, back
}

func TestListPagesBackToTheFirstPageWithItsFilter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := deploymenttest.Setup(t, deploymenttest.DeadCluster(t))
	for _, name := range []string{"blog", "db", "myshop", "shop", "shop-eu", "wiki"} {
		_, err := f.Svc.Queue(ctx, deploymenttest.HelloWeb(name))
		require.NoError(t, err)
	}
	forth, back := pagesForthAndBack(t, f.Svc, deployment.ListOptions{Limit: 2})
	require.Equal(t, [][]string{{"blog", "db"}, {"myshop", "shop"}, {"shop-eu", "wiki"}}, forth)
	require.Equal(t, [][]string{{"shop-eu", "wiki"}, {"myshop", "shop"}, {"blog", "db"}}, back, "Prev walks back the same pages")

	forth, back = pagesForthAndBack(t, f.Svc, deployment.ListOptions{Limit: 2, Filter: deployment.ListFilter{Query: "shop"}})
	require.Equal(t, [][]string{{"myshop", "shop"}, {"shop-eu"}}, forth)
	require.Equal(t, [][]string{{"shop-eu"}, {"myshop", "shop"}}, back, "and keeps the filter")

	// A page that starts after the second one, "db": going back, fewer
	// than a page are left before it, so Prev lands on the whole first page.
	top, err := f.Svc.List(ctx, deployment.ListOptions{Limit: 2})
	require.NoError(t, err)
	db := top.Next
	require.Equal(t, "db", db.Name)
	page, err := f.Svc.List(ctx, deployment.ListOptions{Limit: 3, After: db})
	require.NoError(t, err)
	require.Equal(t, "myshop", page.Items[0].Name)
	page, err = f.Svc.List(ctx, deployment.ListOptions{Limit: 3, Before: page.Prev})
	require.NoError(t, err)
	require.Equal(t, []string{"blog", "db", "myshop"}, []string{page.Items[0].Name, page.Items[1].Name, page.Items[2].Name})
	require.Nil(t, page.Prev)
	require.Equal(t, "myshop", page.Next.Name)

	_, err = f.Svc.List(ctx, deployment.ListOptions{After: db, Before: db})
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "a page is after a place or before one")
}

func TestListFiltersByNameDriverNamespaceHealthAndDriftAPageAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// db's pod crash-loops (Degraded); the Hello Web ones have nothing in the cluster.
	f := deploymenttest.Setup(t, &deployment.Cluster{Kube: &kube.Client{Clientset: crashingPostgres()}, Releases: releasetest.New(t).Client})
	shopEU := deploymenttest.HelloWeb("shop-eu")
	shopEU.Namespace = "europe"
	blog := deploymenttest.HelloWeb("blog")
	blog.Namespace = "europe"
	for _, op := range []deployment.Operation{deploymenttest.Postgres("db"), deploymenttest.HelloWeb("shop"), shopEU, blog, deploymenttest.HelloWeb("myshop")} {
		_, err := f.Svc.Queue(ctx, op)
		require.NoError(t, err)
	}
	require.NoError(t, f.Svc.CheckHealth(ctx))
	f.Svc.RecordDrift("shop", deployment.DriftDrifted)
	f.Svc.RecordDrift("db", deployment.DriftDrifted)
	f.Svc.RecordDrift("blog", deployment.DriftSynced)
	yes, no := true, false

	for _, tt := range []struct {
		name   string
		filter deployment.ListFilter
		want   []string
	}{
		{"none", deployment.ListFilter{}, []string{"blog", "db", "myshop", "shop", "shop-eu"}},
		{"a substring of the name, whatever its case", deployment.ListFilter{Query: "SHOP"}, []string{"myshop", "shop", "shop-eu"}},
		{"driver", deployment.ListFilter{Driver: "postgresql"}, []string{"db"}},
		{"namespace", deployment.ListFilter{Namespace: "europe"}, []string{"blog", "shop-eu"}},
		{"all of them", deployment.ListFilter{Query: "shop", Driver: "hello-web", Namespace: "europe"}, []string{"shop-eu"}},
		{"health", deployment.ListFilter{Health: health.Degraded}, []string{"db"}},
		{"a health no deployment has", deployment.ListFilter{Health: health.Stopped}, nil},
		{"drifted", deployment.ListFilter{Drifted: &yes}, []string{"db", "shop"}},
		{"not drifted: synced and never read", deployment.ListFilter{Drifted: &no}, []string{"blog", "myshop", "shop-eu"}},
		{"drifted and healthy in the same way", deployment.ListFilter{Drifted: &yes, Health: health.Degraded}, []string{"db"}},
		{"drifted in a namespace", deployment.ListFilter{Drifted: &yes, Namespace: "europe"}, nil},
		{"SQL's wildcards are letters", deployment.ListFilter{Query: "sh%p"}, nil},
		{"an underscore too", deployment.ListFilter{Query: "_"}, nil},
		{"quotes and a statement", deployment.ListFilter{Query: "'; DROP TABLE deployments; --"}, nil},
		{"a regular expression is text", deployment.ListFilter{Query: "^shop$"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			all, _ := listNames(t, f.Svc, deployment.ListOptions{Filter: tt.filter})
			require.Equal(t, tt.want, all)
			paged, pages := listNames(t, f.Svc, deployment.ListOptions{Filter: tt.filter, Limit: 1})
			require.Equal(t, tt.want, paged, "a page at a time, the next pages keep the filter")
			require.Equal(t, max(1, len(tt.want)), pages)
			forth, back := pagesForthAndBack(t, f.Svc, deployment.ListOptions{Filter: tt.filter, Limit: 1})
			require.Equal(t, forth, reversed(back), "Prev pages back through the same filter")
		})
	}
	all, _ := listNames(t, f.Svc, deployment.ListOptions{})
	require.Len(t, all, 5, "the hostile searches changed nothing")
}

// reversed is a copy of pages, last first.
func reversed(pages [][]string) [][]string {
	out := slices.Clone(pages)
	slices.Reverse(out)
	return out
}

func TestListRefusesFiltersNoDeploymentCouldMatch(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, deploymenttest.DeadCluster(t))
	for _, filter := range []deployment.ListFilter{
		{Query: strings.Repeat("a", 10_000)},
		{Driver: strings.Repeat("x", deployment.MaxListFilterText+1)},
		{Namespace: strings.Repeat("'", 10_000)},
		{Health: "Sick"},
		{Health: "healthy"},
	} {
		_, err := f.Svc.List(context.Background(), deployment.ListOptions{Filter: filter})
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%.40v", filter)
	}
	_, err := f.Svc.List(context.Background(), deployment.ListOptions{Filter: deployment.ListFilter{Query: strings.Repeat("a", deployment.MaxListFilterText)}})
	require.NoError(t, err, "the longest filter allowed")
}
