package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/handlers/action"
)

// TestTheActionAddressRefusesPathsThatCleanToTheActionAPIButRouteElsewhere:
// a client of the action address writes a path whose decoded, cleaned form is
// under the action API while Echo, which routes on the raw path, would send
// it to the REST API or the pages (escaped slashes and dots, double slashes,
// dot segments): each is answered 404 and no handler outside the action API
// runs. The action API itself still answers.
func TestTheActionAddressRefusesPathsThatCleanToTheActionAPIButRouteElsewhere(t *testing.T) {
	t.Parallel()
	attacks := []struct {
		name, method, target string
	}{
		{"escaped slashes %2F into a REST change", http.MethodPost, "/api/v1/deployments/..%2F..%2F..%2Fapi%2Faction%2Fv1/upgrade"},
		{"escaped slashes %2f into a REST read", http.MethodGet, "/api/v1/deployments/..%2f..%2f..%2fapi%2faction%2fv1%2fdeployment"},
		{"escaped dots and slashes %2e%2e%2f", http.MethodPost, "/api/v1/deployments/%2e%2e%2f%2e%2e%2f%2e%2e%2fapi%2faction%2fv1/upgrade"},
		{"escaped dots %2e%2e as a segment", http.MethodGet, "/static/%2e%2e/api/action/v1/deployment"},
		{"escaped %2E%2E and a dot segment", http.MethodPost, "/api/v1/deployments/.%2F%2E%2E%2F..%2F..%2Fapi%2Faction%2Fv1/upgrade"},
		{"plain dot-dot segment", http.MethodGet, "/static/../api/action/v1/deployment"},
		{"double slash", http.MethodGet, "/static//../../api/action/v1/deployment"},
		{"dot segment /./", http.MethodGet, "/static/./../api/action/v1/deployment"},
		{"out of the action API with escaped slashes", http.MethodGet, action.Prefix + "%2F..%2F..%2F..%2Fapi/v1/deployments/x"},
		{"out of the action API with dot segments", http.MethodGet, action.Prefix + "../../v1/deployments/x"},
		{"escaped letters", http.MethodGet, "/api/%61ction/v1/deployment"},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			served, reached := actionListener()
			rec := httptest.NewRecorder()
			served.ServeHTTP(rec, httptest.NewRequest(a.method, a.target, nil))
			require.Equal(t, http.StatusNotFound, rec.Code, "%s %s", a.method, a.target)
			require.Empty(t, reached, "%s %s reached a handler", a.method, a.target)
		})
	}

	served, reached := actionListener()
	rec := httptest.NewRecorder()
	served.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, action.Prefix+"deployment", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, map[string]bool{"GET " + action.Prefix + "deployment": true}, reached, "the action API answers on the action address")
}

// actionListener returns what the action address serves in front of an Echo
// router with the shapes of the main address's routes (handlers/routes.go),
// and the routes (method and pattern) whose handlers ran.
func actionListener() (http.Handler, map[string]bool) {
	reached := map[string]bool{}
	e := echo.New()
	record := func(c echo.Context) error {
		reached[c.Request().Method+" "+c.Path()] = true
		return c.NoContent(http.StatusOK)
	}
	e.GET(action.Prefix+"deployment", record)
	e.GET("/api/v1/deployments/:name", record)
	e.POST("/api/v1/deployments/:name/upgrade", record)
	e.GET("/static/*", record)
	return actionAPIOnly(e), reached
}
