package handlers_test

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/deployment"
	bundled "github.com/styrmin/styrmin/drivers/catalog"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/kubelocal/kubetest"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/sdk"
	"github.com/styrmin/styrmin/secrets"
)

// clusterEnv is a running server whose deployments go to the local
// Kubernetes, with an executor working their tasks.
type clusterEnv struct {
	URL       string
	Users     *auth.Users
	APITokens *auth.APITokens
	Catalog   *catalog.Catalog
	Service   *deployment.Service
	Cluster   *deployment.Cluster
}

// newClusterEnv starts the real server (pages, API and action primitives) and
// an executor on a fresh database with the bundled drivers, deploying to the
// local cluster. Driver actions run only after runActions.
func newClusterEnv(t *testing.T) *clusterEnv {
	t.Helper()
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	pool := dbtest.New(t)
	users, err := auth.NewUsers(pool, auth.WithArgon2(auth.CheapArgon2()))
	require.NoError(t, err)
	sessions, err := auth.NewSessions([]byte(strings.Repeat("k", auth.MinSessionKeyLength)), pool)
	require.NoError(t, err)
	cat := catalog.New(pool)
	_, err = cat.ImportBundled(ctx, bundled.Bundles(), bundled.Names())
	require.NoError(t, err)

	client, err := kube.Connect(kubetest.Kubeconfig(t), "")
	require.NoError(t, err)
	releases, err := release.New(client.Config, logger)
	require.NoError(t, err)
	cluster := &deployment.Cluster{Releases: releases, Kube: client}
	key, err := secrets.ParseKey(secrets.NewKeyText())
	require.NoError(t, err)
	box, err := secrets.NewBox(key)
	require.NoError(t, err)
	queue, err := executor.New(pool, nil, executor.Options{})
	require.NoError(t, err)
	svc := deployment.New(pool, cat, queue, box, cluster)
	worker, err := executor.New(pool, svc.Runners(), executor.Options{HeartbeatEvery: time.Second, StaleAfter: 10 * time.Second})
	require.NoError(t, err)
	require.NoError(t, worker.Start(ctx))
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		require.NoError(t, worker.Stop(stopCtx))
	})

	simulated, err := client.Simulated(ctx)
	require.NoError(t, err)
	require.True(t, simulated, "the local cluster's pods are simulated")
	tokens := auth.NewAPITokens(pool)
	srv := httptest.NewServer(handlers.New(handlers.Deps{
		Logger: logger, Sessions: sessions, Users: users, Drivers: cat, Deployments: svc, SimulatedCluster: simulated,
		APITokens: tokens, Primitives: svc,
	}))
	t.Cleanup(srv.Close)
	return &clusterEnv{URL: srv.URL, Users: users, APITokens: tokens, Catalog: cat, Service: svc, Cluster: cluster}
}

// runActions lets the executor run driver actions for real, calling back
// this server's primitives.
func (env *clusterEnv) runActions(t *testing.T) {
	t.Helper()
	python, err := actions.FindPython(context.Background())
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, sdk.Install(dir))
	env.Service.EnableActions(deployment.ActionsConfig{Python: python, SDK: dir, APIURL: env.URL}, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// removeWhenDone deletes the deployment and its namespace from the cluster
// when the test ends, whatever state it is in.
func (env *clusterEnv) removeWhenDone(t *testing.T, name string) {
	t.Cleanup(func() {
		ctx := context.Background()
		_, _ = env.Cluster.Releases.Uninstall(ctx, release.UninstallOptions{Namespace: name, Name: name, IgnoreNotFound: true, Timeout: time.Minute})
		_ = env.Cluster.Kube.DeleteNamespace(ctx, name)
	})
}

// waitLong polls a JavaScript predicate for as long as a task on the
// cluster may take.
func waitLong(t *testing.T, ctx context.Context, what, predicate string) {
	t.Helper()
	waitCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	require.NoError(t, chromedp.Do(waitCtx, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(5*time.Minute))), what)
}

// newestTask is a JavaScript expression for the newest task on a deployment page.
const newestTask = `document.querySelector('[data-testid="task-list"] [data-testid="task"]')`

// TestBrowserInstallAndUpgradeOnTheCluster drives a real Chromium through a
// deployment's life on the local Kubernetes: install Hello Web from its form,
// watch the task finish live, upgrade it through the review page and watch
// that task finish live too.
func TestBrowserInstallAndUpgradeOnTheCluster(t *testing.T) {
	t.Parallel()
	env := newClusterEnv(t)
	_, err := env.Users.Create(context.Background(), auth.NewUser{Username: "boss", Password: catalogPassword, Role: auth.Admin})
	require.NoError(t, err)
	name := "browser-" + strings.ToLower(rand.Text()[:6])
	env.removeWhenDone(t, name)
	ctx := newBrowser(t)

	step(t, ctx, "sign in and open the Hello Web driver",
		chromedp.Navigate(env.URL+"/drivers/hello-web"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="signin-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#username`), "boss"),
		chromedp.SendKeys(chromedp.CSS(`#password`), catalogPassword),
		chromedp.Click(chromedp.CSS(`[data-testid="signin-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deploy-link"]`)),
	)
	step(t, ctx, "open the install form",
		chromedp.Click(chromedp.CSS(`[data-testid="deploy-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="install-form"]`)),
	)
	require.Equal(t, "Hello from Styrmin", eval[string](t, ctx, `document.querySelector('#param-site_title').value`), "defaults are filled in")
	step(t, ctx, "fill in and submit the form",
		chromedp.SendKeys(chromedp.CSS(`#deploy-name`), name),
		chromedp.SetValue(chromedp.CSS(`#param-site_title`), "Browser shop"),
		chromedp.Click(chromedp.CSS(`[data-testid="install-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deployment-header"]`)),
	)
	require.Equal(t, "/deployments/"+name, eval[string](t, ctx, `location.pathname`))
	require.Equal(t, name, eval[string](t, ctx, `document.querySelector('[data-testid="deployment-name"]').textContent.trim()`))
	require.Contains(t, eval[string](t, ctx, `document.querySelector('[data-testid="flash"]').textContent`), "queued for install")

	// A marker on the window survives htmx swaps but not a page load.
	eval[bool](t, ctx, `window.__sameDocument = true`)
	waitLong(t, ctx, "the install task succeeds live", newestTask+`.dataset.status === "succeeded"`)
	require.True(t, eval[bool](t, ctx, `window.__sameDocument === true`), "the task updated without a page reload")
	require.Greater(t, eval[int](t, ctx, newestTask+`.querySelectorAll('[data-testid="step"]').length`), 1, "its steps are shown")
	waitFor(t, ctx, "the header follows the task",
		`document.querySelector('[data-testid="deployment-status"]').textContent.trim() === "deployed" && !document.querySelector('[data-testid="deployment-busy"]')`)
	waitFor(t, ctx, "the components follow the task",
		`[...document.querySelectorAll('[data-testid="component"][data-name="web"] [data-testid="replicas"]')].map(r => r.textContent.replace(/\s/g, "")).join() === "2/2"`)
	require.True(t, eval[bool](t, ctx, `window.__sameDocument === true`))
	require.Contains(t, eval[string](t, ctx, `document.querySelector('[data-testid="simulated-cluster"]').textContent`),
		"cannot be reached from this machine", "the page says what the local cluster cannot do")

	step(t, ctx, "open the upgrade form",
		chromedp.Navigate(env.URL+"/deployments/"+name),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upgrade-link"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="upgrade-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upgrade-form"]`)),
	)
	require.Equal(t, "Browser shop", eval[string](t, ctx, `document.querySelector('#param-site_title').value`), "the form starts from the current values")
	step(t, ctx, "change a parameter and review",
		chromedp.SetValue(chromedp.CSS(`#param-replicas`), "3"),
		chromedp.Click(chromedp.CSS(`[data-testid="upgrade-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="review-changes"]`)),
	)
	require.Equal(t, "changed", eval[string](t, ctx, `document.querySelector('[data-testid="param-change"][data-name="replicas"]').dataset.kind`))
	require.False(t, eval[bool](t, ctx, `!!document.querySelector('[data-testid="dry-run-error"]')`), "the dry run works")
	require.Contains(t, eval[string](t, ctx, `[...document.querySelectorAll('[data-testid="resource-diff"][data-kind="Deployment"] [data-testid="diff"]')].map(d => d.textContent).join("\n")`),
		"+  replicas: 3", "the manifest diff shows the change")

	step(t, ctx, "confirm the upgrade",
		chromedp.Click(chromedp.CSS(`[data-testid="review-confirm"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deployment-header"]`)),
	)
	require.Equal(t, "/deployments/"+name, eval[string](t, ctx, `location.pathname`))
	require.Contains(t, eval[string](t, ctx, newestTask+`.querySelector('h3').textContent`), "Upgrade")
	eval[bool](t, ctx, `window.__sameDocument = true`)
	waitLong(t, ctx, "the upgrade task succeeds live", newestTask+`.dataset.status === "succeeded"`)
	require.True(t, eval[bool](t, ctx, `window.__sameDocument === true`), "the task updated without a page reload")
	waitFor(t, ctx, "the parameters and revisions follow the task",
		`document.querySelector('[data-testid="param-value"][data-name="replicas"] code.value').textContent.trim() === "3" && `+
			`document.querySelectorAll('[data-testid="revision"]').length === 2`)
	require.True(t, eval[bool](t, ctx, `window.__sameDocument === true`))

	d, err := env.Service.Get(context.Background(), name)
	require.NoError(t, err)
	require.Equal(t, float64(3), d.Parameters["replicas"])
	queued, err := env.Service.Delete(context.Background(), name, name, nil, "boss")
	require.NoError(t, err)
	env.waitEnded(t, name, queued.TaskID)
}
