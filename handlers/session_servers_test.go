package handlers_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"testing"
	"time"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
)

// TestSignOutOnOneServerEndsTheCopiedCookieOnAnother is the copied-cookie
// attack of issue 7 against two servers sharing a database: server B
// remembers the session, the admin signs out on server A, and the copied
// cookie stops working on B too.
func TestSignOutOnOneServerEndsTheCopiedCookieOnAnother(t *testing.T) {
	t.Parallel()
	a := handlerstest.NewCatalogEnv(t)
	b := handlerstest.ServeOn(t, a)
	admin := a.SignedIn(t, auth.Admin)
	aURL, err := url.Parse(a.URL)
	require.NoError(t, err)
	bURL, err := url.Parse(b.URL)
	require.NoError(t, err)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	jar.SetCookies(bURL, admin.Jar.Cookies(aURL))
	copied := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for range 2 {
		b.Get(t, copied, "/drivers/upload", http.StatusOK) // the second answer comes from B's memory
	}

	_, doc := a.Get(t, admin, "/drivers", http.StatusOK)
	res, err := admin.PostForm(a.URL+"/signout", url.Values{"_csrf": {handlerstest.CSRFToken(t, doc)}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)

	require.Eventually(t, func() bool {
		res, err := copied.Get(b.URL + "/drivers/upload")
		require.NoError(t, err)
		res.Body.Close()
		return res.StatusCode == http.StatusSeeOther
	}, 5*time.Second, 10*time.Millisecond, "the copied cookie is signed out on server B too")
	res, err = copied.Get(b.URL + "/drivers/upload")
	require.NoError(t, err)
	res.Body.Close()
	require.Contains(t, res.Header.Get("Location"), "/signin")
}
