package handlerstest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// chromiumPath is Debian's chromium, installed by scripts/ensure-chromium (make test).
const chromiumPath = "/usr/bin/chromium"

// NewBrowser starts a headless Chromium with a fresh profile and returns a
// tab's context. When the test fails, a screenshot of the tab is saved to a
// temporary file named in the test log. With -short (the fast tier, which
// leaves the browser out) it skips the test.
func NewBrowser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Chromium, which -short leaves out")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("STYRMIN_SKIP_BROWSER") != "" {
			t.Skip("STYRMIN_SKIP_BROWSER is set and chromium is missing")
		}
		t.Fatalf("%s is missing: run scripts/ensure-chromium (make test does), or set STYRMIN_SKIP_BROWSER=1 to skip the browser test", chromiumPath)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancel)
	// Start the browser now, without a deadline: a deadline on the first Run would end the browser.
	require.NoError(t, chromedp.Do(ctx), "start chromium")
	t.Cleanup(func() {
		if t.Failed() {
			saveScreenshot(t, ctx)
		}
	})
	return ctx
}

// saveScreenshot writes a full-page screenshot of the tab to a temporary file.
func saveScreenshot(t *testing.T, ctx context.Context) {
	shotCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(shotCtx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("screenshot failed: %v", err)
		return
	}
	f, err := os.CreateTemp("", "styrmin-browser-*.png")
	if err != nil {
		t.Logf("screenshot: %v", err)
		return
	}
	defer f.Close()
	if _, err := f.Write(png); err != nil {
		t.Logf("screenshot: %v", err)
		return
	}
	t.Logf("screenshot of the failing page: %s", f.Name())
}

// Step runs browser actions with a deadline of 30 seconds.
func Step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	StepWithin(t, ctx, what, 30*time.Second, actions...)
}

// StepWithin runs browser actions with a deadline of limit: for pages that
// ask the cluster (an upgrade's review runs a dry run) on a busy machine.
func StepWithin(t *testing.T, ctx context.Context, what string, limit time.Duration, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	stepCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	require.NoError(t, chromedp.Do(stepCtx, actions...), what)
}

// Eval evaluates a JavaScript expression with a deadline.
func Eval[T any](t *testing.T, ctx context.Context, expression string) T {
	t.Helper()
	evalCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(evalCtx, chromedp.Evaluate[T](expression))
	require.NoError(t, err, "evaluate %s", expression)
	return v
}

// WaitFor polls a JavaScript predicate until it is true.
func WaitFor(t *testing.T, ctx context.Context, what, predicate string) {
	t.Helper()
	Step(t, ctx, what, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(15*time.Second)))
}

// WaitLong polls a JavaScript predicate until it is true, for up to limit:
// for what a task on the cluster does.
func WaitLong(t *testing.T, ctx context.Context, what, predicate string, limit time.Duration) {
	t.Helper()
	waitCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	require.NoError(t, chromedp.Do(waitCtx, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(limit))), what)
}

// NewestTask is a JavaScript expression for the newest task on a deployment page.
const NewestTask = `document.querySelector('[data-testid="task-list"] [data-testid="task"]')`

// CardCount is a JavaScript expression counting the catalogue's cards.
const CardCount = `document.querySelectorAll('[data-testid="driver-card"]').length`

// SignIn opens url, which asks who signs in, and signs in as username with
// password; the page url names comes next.
func SignIn(url, username, password string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="signin-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#username`), username),
		chromedp.SendKeys(chromedp.CSS(`#password`), password),
		chromedp.Click(chromedp.CSS(`[data-testid="signin-submit"]`)),
	)
}

// AcceptDialogs answers OK to every dialog the tab opens from now on (an
// hx-confirm's "Delete …?"), as a person who means it does, and sends each
// dialog's message on the channel it returns (up to 8 kept unread).
func AcceptDialogs(ctx context.Context) <-chan string {
	messages := make(chan string, 8)
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			select {
			case messages <- ev.Message:
			default:
			}
			if _, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true}); err != nil {
				return
			}
		}
	}()
	return messages
}
