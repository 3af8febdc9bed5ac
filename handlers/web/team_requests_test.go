package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/teams"
)

// helloForm is the hello-web form of a deployment with replicas pods of
// 64Mi (10m of CPU each).
func helloForm(replicas string) url.Values {
	return url.Values{"driver_version": {"1.0.0"}, "app_version": {"1.27.0"}, "param.site_title": {"Shop"},
		"param.replicas": {replicas}, "param.theme": {"ocean"}, "param.memory_mib": {"64"}}
}

func TestTheUpgradeReviewShowsTheRequestsBesideTheTeamsQuotaAndRefusesBeyondIt(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))
	memory := int64(256 << 20)
	require.NoError(t, teams.NewStore(d.Pool).SetPolicy(context.Background(), teams.Default, teams.Policy{MaxMemoryBytes: &memory}))

	rec := d.Request(d.Operator, http.MethodPost, "/deployments/site/upgrade/review", helloForm("3"))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, []string{"CPU", "20m", "→", "30m", "0", "30m", "none"},
		handlerstest.Texts(doc.Find(`[data-testid="review-requests-cpu"]`).Children()), "now, after, the team's other deployments, in all, its quota")
	require.Equal(t, []string{"Memory", "128Mi", "→", "192Mi", "0", "192Mi", "256Mi"},
		handlerstest.Texts(doc.Find(`[data-testid="review-requests-memory"]`).Children()))

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/upgrade/review", helloForm("5"))
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
	doc = handlerstest.Parse(t, rec)
	want := "the team default may request 256Mi of memory in all; its other live deployments request 0 and this one 320Mi; lower this deployment's replicas or resources, or ask an admin to raise the team's quota"
	require.Equal(t, want, handlerstest.Text(doc.Find(`#deploy-parameters [data-testid="parameters-error"]`)), "said at the parameters")
	require.Equal(t, "#deploy-parameters", doc.Find(`[data-testid="error-summary"] a`).AttrOr("href", ""), "and linked from the summary")
	require.Equal(t, "5", doc.Find("#param-replicas").AttrOr("value", ""), "the form keeps what was entered")

	install := helloForm("3")
	install.Set("name", "blog")
	rec = d.Request(d.Operator, http.MethodPost, "/drivers/hello-web/deploy", install)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
	require.Equal(t, "the team default may request 256Mi of memory in all; its other live deployments request 128Mi and this one 192Mi; lower this deployment's replicas or resources, or ask an admin to raise the team's quota",
		handlerstest.Text(handlerstest.Parse(t, rec).Find(`#deploy-parameters [data-testid="parameters-error"]`)), "an install beyond the quota is refused at its parameters too")
}
