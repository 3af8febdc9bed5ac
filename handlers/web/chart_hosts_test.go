package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

func TestAdminAllowsChartHostsOnTheSettingsPage(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)

	rec := a.Request(admin, http.MethodPost, "/settings/chart-hosts", url.Values{"hosts": {"Charts.Internal\r\n\r\nregistry.local:5000\n"}})
	require.Equal(t, []string{"Chart hosts saved: remote charts may also come from charts.internal, registry.local:5000."}, a.Flashes(t, admin, rec))
	rec = a.Request(admin, http.MethodGet, "/settings", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "Settings", handlerstest.Text(doc.Find(`nav [aria-current="page"]`)))
	require.Equal(t, "charts.internal\nregistry.local:5000", strings.TrimSpace(doc.Find("#chart-hosts-input").Text()))
}

func TestChartHostsFormShowsWhatIsWrongAndKeepsTheInput(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)

	rec := a.Request(admin, http.MethodPost, "/settings/chart-hosts", url.Values{"hosts": {"charts.internal\nhttps://evil.example"}})
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="error-hosts"]`)), "https://evil.example is not a host name, an IP address or host:port")
	require.Equal(t, "charts.internal\nhttps://evil.example", strings.TrimSpace(doc.Find("#chart-hosts-input").Text()))
}
