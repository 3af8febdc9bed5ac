package handlerstest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// Flashes follows a redirect and returns the flash messages of the next page.
func (a *App) Flashes(t *testing.T, v Visitor, rec *httptest.ResponseRecorder) []string {
	t.Helper()
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	page := a.Request(v.Follow(rec), http.MethodGet, rec.Header().Get("Location"), nil)
	require.Equal(t, http.StatusOK, page.Code)
	return Texts(Parse(t, page).Find(`#flash .flash`))
}
