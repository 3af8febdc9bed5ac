package deployment_test

import (
	"context"
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
		})
	}
	all, _ := listNames(t, f.Svc, deployment.ListOptions{})
	require.Len(t, all, 5, "the hostile searches changed nothing")
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
