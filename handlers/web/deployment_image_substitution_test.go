package web_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// TestDeploymentPageSaysWhatRunsOnTheLocalCluster: the pods of a
// deployment's workload carry the local cluster's image substitution
// annotation, and its page says to a read-only user, once per substitution,
// what runs instead of the requested image, and which image cannot run.
func TestDeploymentPageSaysWhatRunsOnTheLocalCluster(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeploymentsOn(t, handlerstest.FakeCluster(t, handlerstest.PgSubstituted("orders", handlerstest.PgSubstitutions)...))
	d.Install(t, handlerstest.PgInstall("orders"))

	rec := d.Request(d.Reader, http.MethodGet, "/deployments/orders", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, []string{"On the local cluster, postgres:16.4 runs as Debian PostgreSQL 15.14 (styrmin.local/postgres:15)."},
		handlerstest.Texts(doc.Find(`[data-testid="image-substitution"]`)), "once, though two pods carry it")
	require.Equal(t, []string{"On the local cluster, quay.io/prometheuscommunity/postgres-exporter:v0.15.0 does not run: no image on the local cluster stands in for quay.io/prometheuscommunity/postgres-exporter:v0.15.0; the local cluster builds postgres, redis."},
		handlerstest.Texts(doc.Find(`[data-testid="image-substitute-missing"]`)))
}
