package api_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	handlersapi "github.com/styrmin/styrmin/handlers/api"
)

func TestAPIRequestsOutOfTheDocumentAreRefusedWithTheFieldAtFault(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	token := a.TokenFor(t, "reta", auth.ReadOnly)
	for _, tc := range []struct{ target, field string }{
		{"/api/v1/drivers?limit=0", "limit"},
		{"/api/v1/drivers?limit=201", "limit"},
		{"/api/v1/drivers?limit=many", "limit"},
		{"/api/v1/drivers?cursor=%21%21not-base64", "cursor"},
		{"/api/v1/deployments?cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`"a string, not a key"`)), "cursor"},
		{"/api/v1/deployments?include_deleted=perhaps", "include_deleted"},
		{"/api/v1/tasks?status=sleeping", "status"},
		{"/api/v1/tasks?kind=reboot", "kind"},
		{"/api/v1/tasks/twelve", "id"},
	} {
		rec := a.Call(t, token, http.MethodGet, tc.target, nil)
		require.Equal(t, http.StatusBadRequest, rec.Code, tc.target)
		p := problemOf(t, rec)
		require.Equal(t, api.ProblemCode("invalid"), p.Code, tc.target)
		require.NotNil(t, p.Fields, "%s: %s", tc.target, p.Detail)
		require.Contains(t, *p.Fields, tc.field, "%s: %s", tc.target, p.Detail)
		require.Less(t, len(p.Detail), 300, "a short message, no schema: %s", p.Detail)
	}

	admin := a.TokenFor(t, "ada", auth.Admin)
	for _, tc := range []struct {
		why, field string
		body       any
	}{
		{"a number for a string", "username", map[string]any{"username": 5, "role": "operator", "password": "a long password"}},
		{"an unknown role", "role", map[string]any{"username": "ann", "role": "boss", "password": "a long password"}},
		{"a required field missing", "password", map[string]any{"username": "ann", "role": "operator"}},
		{"no object", "body", "ann, operator"},
	} {
		rec := a.Call(t, admin, http.MethodPost, "/api/v1/users", tc.body)
		require.Equal(t, http.StatusBadRequest, rec.Code, tc.why)
		p := problemOf(t, rec)
		require.NotNil(t, p.Fields, "%s: %s", tc.why, p.Detail)
		require.Contains(t, *p.Fields, tc.field, "%s: %s", tc.why, p.Detail)
		require.Less(t, len(p.Detail), 300, "a short message, no schema: %s", p.Detail)
	}

	huge := map[string]any{"username": "ann", "role": "operator", "password": strings.Repeat("x", handlersapi.MaxRequest)}
	rec := a.Call(t, admin, http.MethodPost, "/api/v1/users", huge)
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	require.Contains(t, problemOf(t, rec).Detail, "larger than this operation accepts (1 MiB)")
}
