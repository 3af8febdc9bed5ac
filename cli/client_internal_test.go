package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAnAnswerPastTheBoundIsRefused: whatever answers at the URL cannot
// make the client read more than its bound; an answer of the bound's size
// is read whole.
func TestAnAnswerPastTheBoundIsRefused(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// An endless answer: the client must stop reading it.
		w.Write([]byte(strings.Repeat("[", 100)))
		for r.URL.Path == "/endless" && r.Context().Err() == nil {
			if _, err := w.Write([]byte(strings.Repeat("[", 4096))); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	a := authorized{http: srv.Client(), login: Login{URL: srv.URL, Token: "stp_x"}, max: 100}
	read := func(path string) ([]byte, error) {
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		require.NoError(t, err)
		resp, err := a.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		return io.ReadAll(resp.Body)
	}

	body, err := read("/exact")
	require.NoError(t, err)
	require.Len(t, body, 100)

	_, err = read("/endless")
	require.Equal(t, ExitUnavailable, ExitCode(err))
	require.ErrorContains(t, err, "is larger than this client reads")
}
