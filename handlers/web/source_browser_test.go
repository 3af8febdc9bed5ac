package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/source"
)

// TestBrowserAnAdminAddsEditsAndDeletesASource drives a real Chromium
// through the Sources page as an admin: reached from the catalogue's link,
// a refused source shows each error at its field without a page load; the
// corrected one is listed; after the sync it asked for, its versions show
// imported and refused; its Edit form changes its policy and keys in place;
// and once deleted (after a confirm) it is gone.
func TestBrowserAnAdminAddsEditsAndDeletesASource(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	_, err := env.Users.Create(context.Background(), auth.NewUser{Username: "ada", Password: handlerstest.CatalogPassword, Role: auth.Admin})
	require.NoError(t, err)
	pairs, err := handlerstest.KeyPairs()
	require.NoError(t, err)
	site := handlerstest.NewIndexSite(t)
	site.Publish(t, "1.0.1", pairs[0])
	site.Publish(t, "1.0.2", nil) // unsigned
	browser := handlerstest.NewBrowser(t)
	card := `document.querySelector('[data-testid="source-acme"]')`

	openSources(t, browser, env, "ada", `[data-testid="new-source-form"]`)
	require.True(t, handlerstest.Eval[bool](t, browser, `document.querySelector('[data-testid="no-sources"]') !== null`))
	handlerstest.Eval[bool](t, browser, `window.__sameDocument = true`)

	handlerstest.Step(t, browser, "add a source with a bad name, address and key",
		chromedp.SendKeys(chromedp.CSS(`#source-name`), "Acme Drivers"),
		chromedp.SendKeys(chromedp.CSS(`#source-url`), "https://registry.example.com/drivers"),
		chromedp.Click(chromedp.CSS(`[data-testid="signed-only"]`)),
		chromedp.SendKeys(chromedp.CSS(`#source-key-name-0`), "bob"),
		chromedp.SendKeys(chromedp.CSS(`#source-key-pem-0`), "not a key"),
		chromedp.Click(chromedp.CSS(`[data-testid="add-source"]`)),
	)
	handlerstest.WaitFor(t, browser, "the form says why", `document.querySelector('[data-testid="form-error"]')?.textContent === 'The source is not valid.'`)
	require.True(t, handlerstest.Eval[bool](t, browser, `window.__sameDocument === true`), "the errors came without a page load")
	for field, input := range map[string]string{"name": "#source-name", "url": "#source-url", "keys": "#source-key-pem-0"} {
		require.True(t, handlerstest.Eval[bool](t, browser,
			`document.querySelector('[data-testid="error-`+field+`"]').closest('.field').contains(document.querySelector('`+input+`'))`),
			"the %s error is at its field", field)
	}
	require.Contains(t, handlerstest.Eval[string](t, browser, `document.querySelector('[data-testid="error-url"]').textContent`), "is not an index's address")
	require.Equal(t, "Acme Drivers", handlerstest.Eval[string](t, browser, `document.querySelector('#source-name').value`), "the form keeps what was typed")
	require.True(t, handlerstest.Eval[bool](t, browser, `document.querySelector('[data-testid="signed-only"]').checked`))

	handlerstest.Step(t, browser, "correct the name, the address and the key, and add it again",
		chromedp.Clear(chromedp.CSS(`#source-name`)),
		chromedp.SendKeys(chromedp.CSS(`#source-name`), "acme"),
		chromedp.Clear(chromedp.CSS(`#source-url`)),
		chromedp.SendKeys(chromedp.CSS(`#source-url`), site.URL),
		chromedp.Clear(chromedp.CSS(`#source-key-name-0`)),
		chromedp.SendKeys(chromedp.CSS(`#source-key-name-0`), "alice"),
		chromedp.SetValue(chromedp.CSS(`#source-key-pem-0`), string(pairs[0].Public)), // pasted
		chromedp.Click(chromedp.CSS(`[data-testid="add-source"]`)),
	)
	handlerstest.WaitFor(t, browser, "the source is listed", card+` !== null`)
	require.True(t, handlerstest.Eval[bool](t, browser, `window.__sameDocument === true`), "added without a page load")
	require.Equal(t, "The source acme is added: a worker reads its versions within 15 seconds.",
		handlerstest.Eval[string](t, browser, `document.querySelector('[data-testid="notice"]').textContent.trim()`))
	require.Equal(t, site.URL, handlerstest.Eval[string](t, browser, card+`.querySelector('[data-testid="source-url"]').textContent`))
	require.Equal(t, "alice", handlerstest.Eval[string](t, browser, card+`.querySelector('[data-testid="keys"]').textContent.trim()`))
	require.Equal(t, "", handlerstest.Eval[string](t, browser, `document.querySelector('#source-name').value`), "the add form is empty again")

	handlerstest.Step(t, browser, "ask for a sync", chromedp.Click(chromedp.CSS(`[data-testid="sync-source"]`)))
	handlerstest.WaitFor(t, browser, "the sync is requested",
		`document.querySelector('[data-testid="notice"]')?.textContent.includes('A sync of acme is requested')`)
	site.SyncSources(t, env.Env) // what a worker does within 15 seconds
	handlerstest.Step(t, browser, "look again",
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="source-versions"]`)),
	)
	version := func(tag, what string) string {
		return handlerstest.Eval[string](t, browser, card+`.querySelector('[data-testid="version-hello-web@`+tag+`"] [data-testid="`+what+`"]').textContent.trim()`)
	}
	require.Equal(t, "imported", version("1.0.1", "status"))
	require.Equal(t, "alice", version("1.0.1", "signed-by"))
	require.Equal(t, "refused", version("1.0.2", "status"))
	require.Equal(t, "unsigned: the source requires a signature by one of its keys", version("1.0.2", "reason"))
	handlerstest.Eval[bool](t, browser, `window.__sameDocument = true`)

	handlerstest.Step(t, browser, "allow unsigned versions and remove alice's key",
		chromedp.Click(chromedp.CSS(`[data-testid="source-acme"] [data-testid="edit-source"] summary`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="source-acme"] [data-testid="policy-unsigned-allowed"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="source-acme"] [data-testid="policy-unsigned-allowed"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="source-acme"] [data-testid="remove-key-alice"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="source-acme"] [data-testid="update-source"]`)),
	)
	handlerstest.WaitFor(t, browser, "the change is saved",
		`document.querySelector('[data-testid="notice"]')?.textContent.includes('The source acme is changed')`)
	require.True(t, handlerstest.Eval[bool](t, browser, `window.__sameDocument === true`), "saved without a page load")
	require.Contains(t, handlerstest.Eval[string](t, browser, card+`.querySelector('[data-testid="policy"]').textContent`), "Unsigned allowed")
	require.Equal(t, "none", handlerstest.Eval[string](t, browser, card+`.querySelector('[data-testid="keys"]').textContent.trim()`))
	require.Equal(t, "refused", version("1.0.2", "status"), "the versions read stay as they were")

	confirms := handlerstest.AcceptDialogs(browser)
	handlerstest.Step(t, browser, "delete the source", chromedp.Click(chromedp.CSS(`[data-testid="delete-source"]`)))
	handlerstest.WaitFor(t, browser, "the source is gone", card+` === null && document.querySelector('[data-testid="no-sources"]') !== null`)
	require.Equal(t, "Delete the source acme? The versions it imported stay in the catalogue.", <-confirms, "the page asked first")
	require.Equal(t, "The source acme is deleted; the versions it imported stay in the catalogue.",
		handlerstest.Eval[string](t, browser, `document.querySelector('[data-testid="notice"]').textContent.trim()`))
	list, err := env.Sources.List(context.Background())
	require.NoError(t, err)
	require.Empty(t, list)
}

// TestBrowserAReadOnlyUserSeesTheSourcesButNoControls: a read-only user
// reaches the Sources page from the catalogue too and sees each source and
// its versions, with no form to add, sync, edit or delete one.
func TestBrowserAReadOnlyUserSeesTheSourcesButNoControls(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	ctx := context.Background()
	_, err := env.Users.Create(ctx, auth.NewUser{Username: "rita", Password: handlerstest.CatalogPassword, Role: auth.ReadOnly})
	require.NoError(t, err)
	site := handlerstest.NewIndexSite(t)
	site.Publish(t, "1.0.1", nil)
	_, err = env.Sources.Add(ctx, source.NewSource{Name: "acme", URL: site.URL}, "ada")
	require.NoError(t, err)
	site.SyncSources(t, env.Env)
	browser := handlerstest.NewBrowser(t)

	openSources(t, browser, env, "rita", `[data-testid="source-acme"]`)
	require.Equal(t, "imported", handlerstest.Eval[string](t, browser,
		`document.querySelector('[data-testid="version-hello-web@1.0.1"] [data-testid="status"]').textContent.trim()`))
	for _, control := range []string{"new-source-form", "sync-source", "edit-source", "delete-source"} {
		require.False(t, handlerstest.Eval[bool](t, browser, `document.querySelector('[data-testid="`+control+`"]') !== null`),
			"a read-only user sees no %s", control)
	}
	require.Zero(t, handlerstest.Eval[int](t, browser, `document.querySelectorAll('#sources-page form').length`), "nor any other form")
}

// openSources signs in as username and opens the Sources page from the
// catalogue's link, as a person does, until the element shown lies there.
func openSources(t *testing.T, browser context.Context, env *handlerstest.CatalogEnv, username, shown string) {
	t.Helper()
	handlerstest.Step(t, browser, "sign in as "+username+" and open the sources from the catalogue",
		handlerstest.SignIn(env.URL+"/drivers", username, handlerstest.CatalogPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="sources-link"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="sources-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(shown)),
	)
	require.Equal(t, "/sources", handlerstest.Eval[string](t, browser, `location.pathname`))
}
