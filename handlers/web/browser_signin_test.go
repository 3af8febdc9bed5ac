package web_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
)

// TestBrowserSigninNextStaysOnTheOrigin is the open redirect of issue 7 in
// the browser that had it: Chromium drops the tab of /%09/evil.example and
// followed //evil.example. A signed-in user sent to /signin?next=... must stay
// on this server whatever next says.
func TestBrowserSigninNextStaysOnTheOrigin(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	_, err := env.Users.Create(context.Background(), auth.NewUser{Username: "boss", Password: handlerstest.CatalogPassword, Role: auth.Admin})
	require.NoError(t, err)
	origin, err := url.Parse(env.URL)
	require.NoError(t, err)
	ctx := handlerstest.NewBrowser(t)

	handlerstest.Step(t, ctx, "sign in",
		handlerstest.SignIn(env.URL+"/signin", "boss", handlerstest.CatalogPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="driver-grid"]`)),
	)
	for _, next := range []string{"/%09/evil.example", "/%5Cevil.example", "//evil.example", "/%0A/evil.example", "https:evil.example"} {
		handlerstest.Step(t, ctx, "open /signin?next="+next,
			chromedp.Navigate(env.URL+"/signin?next="+next),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="driver-grid"]`)),
		)
		require.Equal(t, origin.Host, handlerstest.Eval[string](t, ctx, `location.host`), "next=%s", next)
	}
}
