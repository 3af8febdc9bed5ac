package web_test

import (
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/sso"
	"github.com/styrmin/styrmin/sso/ssotest"
)

// TestBrowserSingleSignOnThroughDex signs in through a real identity
// provider's own login page: Dex, with users in groups. A user of the
// operators group deploys and is refused user administration; a user of no
// mapped group is refused with a page that says so.
func TestBrowserSingleSignOnThroughDex(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("needs Chromium and Dex, which -short leaves out")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	appURL := "http://" + ln.Addr().String()
	const password = "dex-password-123"
	dex := ssotest.StartDex(t, appURL+sso.CallbackPath,
		ssotest.DexUser{Username: "olga", Password: password, Groups: []string{"styrmin-operators"}},
		ssotest.DexUser{Username: "nils", Password: password, Groups: []string{"marketing"}})
	env := apptest.New(t, apptest.Options{Listener: ln, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), SSO: &sso.Config{
		Issuer: dex.Issuer, ClientID: ssotest.ClientID, ClientSecret: ssotest.ClientSecret, Name: "Dex",
		Scopes: []string{"openid", "profile", "email", "groups"}, Roles: sso.RoleGroups{"styrmin-operators": auth.Operator, "styrmin-admins": auth.Admin},
	}})
	env.Start(t)
	signInAtDex := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="signin-sso"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="signin-sso"]`)),
			chromedp.WaitVisible(chromedp.CSS(`#login`)),
			chromedp.SendKeys(chromedp.CSS(`#login`), name+"@example.com"),
			chromedp.SendKeys(chromedp.CSS(`#password`), password),
			chromedp.Click(chromedp.CSS(`#submit-login`)),
		)
	}

	ctx := handlerstest.NewBrowser(t)
	handlerstest.Step(t, ctx, "sign in at Dex as an operator",
		chromedp.Navigate(appURL+"/drivers/hello-web"),
		signInAtDex("olga"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deploy-link"]`)),
	)
	require.Equal(t, "/drivers/hello-web", handlerstest.Eval[string](t, ctx, `location.pathname`), "back where the user was going")
	require.Equal(t, "olga", handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="current-user"]').textContent.trim()`))
	handlerstest.Step(t, ctx, "deploy",
		chromedp.Click(chromedp.CSS(`[data-testid="deploy-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="install-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#deploy-name`), "sso-site"),
		chromedp.Click(chromedp.CSS(`[data-testid="install-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deployment-header"]`)),
	)
	require.Equal(t, "/deployments/sso-site", handlerstest.Eval[string](t, ctx, `location.pathname`))
	require.Contains(t, handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="flash"]').textContent`), "queued for install")
	handlerstest.Step(t, ctx, "open user administration",
		chromedp.Navigate(appURL+"/users"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="error-page"]`)),
	)
	require.Equal(t, "403", handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="error-status"]').textContent.trim()`), "an operator is refused user administration")

	other := handlerstest.NewBrowser(t)
	handlerstest.Step(t, other, "sign in at Dex as a user of no mapped group",
		chromedp.Navigate(appURL+"/"),
		signInAtDex("nils"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="error-page"]`)),
	)
	require.Equal(t, "403", handlerstest.Eval[string](t, other, `document.querySelector('[data-testid="error-status"]').textContent.trim()`))
	require.True(t, strings.Contains(handlerstest.Eval[string](t, other, `document.querySelector('[data-testid="error-message"]').textContent`), "none of your groups has access to Styrmin"))
	handlerstest.Step(t, other, "nobody is signed in",
		chromedp.Navigate(appURL+"/deployments"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="signin-form"]`)),
	)
}
