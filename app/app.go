// Package app builds Styrmin once from its configuration: the catalogue, the
// secrets box, the cluster, the task queue, the deployment service on it, the
// worker when the process works tasks and the web app when it serves them.
// `styrmin serve`, `styrmin worker` and the tests' environment (apptest) all
// build it with New; nothing is changed after New returns.
package app

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	corev1 "k8s.io/api/core/v1"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/metrics"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/runner"
	"github.com/styrmin/styrmin/schedule"
	"github.com/styrmin/styrmin/sdk"
	"github.com/styrmin/styrmin/secrets"
	"github.com/styrmin/styrmin/source"
	"github.com/styrmin/styrmin/sso"
	"github.com/styrmin/styrmin/teams"
	"github.com/styrmin/styrmin/webhooks"
)

// Config is what New builds the app from.
type Config struct {
	// Pool is the database, migrated; the caller closes it after the app.
	Pool *pgxpool.Pool
	// Logger receives every log line (default slog.Default()).
	Logger *slog.Logger
	// SecretKey, or the file SecretKeyFile, is the key of secret parameters
	// (secrets.LoadKey); New refuses a key other than the database's.
	SecretKey     string
	SecretKeyFile string
	// PreviousSecretKeys, or the file PreviousSecretKeyFile, are the keys
	// that were current before SecretKey: they open what is not yet re-sealed
	// during a key rotation (secrets.LoadPreviousKeys).
	PreviousSecretKeys    string
	PreviousSecretKeyFile string
	// Kubeconfig and KubeContext name the cluster to deploy to (kube.Connect);
	// with neither configured, there is none and the log says so.
	Kubeconfig  string
	KubeContext string
	// Cluster, when set, is the cluster instead of Kubeconfig's (tests: a
	// fake or unreachable one).
	Cluster *deployment.Cluster
	// NoCluster deploys nowhere, whatever KUBECONFIG says (tests).
	NoCluster bool
	// ClusterOptions say how deployments act on the cluster: the Pod
	// Security levels of the namespaces Styrmin creates, Helm's history bound.
	ClusterOptions deployment.ClusterOptions
	// ActionsURL is the base URL at which driver actions call back this
	// Styrmin's primitives (the server's own URL); empty, the process runs
	// no driver actions and a hook step fails saying so.
	ActionsURL string
	// ActionRuntime is how driver actions run: actions.RuntimeProcess
	// (default: a child process, sandboxed when the server can) or
	// actions.RuntimePod (a pod per run in the deployment's namespace).
	ActionRuntime string
	// ActionImage is the action-runner image of the pod runtime.
	ActionImage string
	// ActionAPIURL is the base URL at which action pods reach the action
	// API (default ActionsURL); the pod runtime only.
	ActionAPIURL string
	// ActionResources are the action pods' requests and limits (zero:
	// actions.DefaultResources); the pod runtime only.
	ActionResources corev1.ResourceRequirements
	// Executor tunes the task queue and the worker (its Work is Config.Work's).
	Executor executor.Options
	// Work makes the process work tasks: New builds the Worker, Run runs it.
	Work bool
	// AuditRetention is how long the worker keeps audit entries (0: forever).
	AuditRetention time.Duration
	// TaskRetention is how long the worker keeps ended tasks with their
	// steps and logs (0: forever; executor.Prune says what stays).
	TaskRetention time.Duration
	// Drain is how long Run lets running tasks go on once its context ends,
	// before they are cancelled and recovered.
	Drain time.Duration
	// Serve makes the process serve the web app: New builds the users,
	// sessions, API tokens and the Handler, and Run keeps their caches
	// current and forgets stale sessions.
	Serve bool
	// Serves is the part of the routes it serves (handlers.Part; "" for
	// all). A process that serves only the action API acts as each
	// namespace's deployer (it runs the primitives' Jobs) even though it
	// works no task, and keeps no deployment's health current.
	Serves handlers.Part
	// SessionKey signs session cookies (auth.SessionSecret: when empty, one
	// is generated once and kept in the database).
	SessionKey string
	// UsersOptions tune the users' store (tests: auth.CheapArgon2).
	UsersOptions []auth.UsersOption
	// Metrics, when set, receives the process's series: requests, tasks,
	// sign-ins, actions and the queue's depth (the caller serves it).
	Metrics *metrics.Metrics
	// TrustedProxies are the reverse proxies whose forwarding headers the
	// web app believes (handlers.Deps.TrustedProxies).
	TrustedProxies []*net.IPNet
	// ExternalURL is the URL users reach the web app at, through a proxy:
	// webhook deliveries link the task's page under it (default ActionsURL;
	// both empty, no link), and when it is https session cookies are always
	// Secure.
	ExternalURL *url.URL
	// SSO, when set, is the OpenID Connect provider people sign in with;
	// New reads its discovery document.
	SSO *sso.Config
	// LocalSignin says who may sign in with a password (default everyone).
	LocalSignin auth.LocalSignin
	// RegistryCAs verify the certificates of the hosts remote charts and
	// catalogue sources are downloaded from; the system's when nil.
	RegistryCAs *x509.CertPool
}

// App is Styrmin built: what serve, worker and the tests use.
type App struct {
	Pool    *pgxpool.Pool
	Logger  *slog.Logger
	Catalog *catalog.Catalog
	// Cluster is nil when no cluster is configured.
	Cluster *deployment.Cluster
	// Queue commits and cancels tasks; Deployments queues through it.
	Queue       *executor.Executor
	Deployments *deployment.Service
	// Webhooks keeps the webhooks that hear of tasks starting and ending.
	Webhooks *webhooks.Store
	// Schedules keeps the schedules of manual actions; ScheduleRunner,
	// which queues their runs, is nil unless Config.Work.
	Schedules      *schedule.Service
	ScheduleRunner *schedule.Runner
	// Sources keeps the catalogue sources; Run syncs them when Config.Work.
	Sources *source.Service
	// Teams keeps the teams, their members and roles.
	Teams *teams.Store
	// Audit is the audit log: the web app records into it, Run prunes it.
	Audit *audit.Store
	// Runners do the work of each task kind that Deployments queues.
	Runners *runner.Runners
	// Worker works the tasks with Runners; nil unless Config.Work.
	Worker *executor.Worker
	// Users, Sessions, APITokens, Notifications, Handler and Deps are the
	// web app's; zero unless Config.Serve.
	Users     *auth.Users
	Sessions  *auth.Sessions
	APITokens *auth.APITokens
	// SSO is the OpenID Connect provider; nil without single sign-on.
	SSO *sso.Provider
	// Notifications keeps the caches of sessions, tokens and the catalogue
	// current while Run runs.
	Notifications *db.Listener
	// Handler serves the pages, the REST API and the action primitives.
	Handler *echo.Echo
	// Deps are the parts Handler was built from (handlers.New); a test
	// builds a variant of the handler on them (a counting catalogue, a
	// logger it reads).
	Deps handlers.Deps

	drain          time.Duration
	auditRetention time.Duration
	taskRetention  time.Duration
	// watchHealth keeps deployments' health current (the web is served).
	watchHealth bool
	// sdkDir holds the styrmin Python package that actions import; Close removes it.
	sdkDir string
}

// New builds the app of cfg. The deployment service queues through the
// process's one executor; when cfg.Work is set, the worker is built on that
// same executor (one River client per process, see executor.New). Close
// removes what New wrote on disk, also when New fails.
func New(ctx context.Context, cfg Config) (a *App, err error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	a = &App{Pool: cfg.Pool, Logger: logger, Catalog: catalog.New(cfg.Pool, release.ChartFetcher{RootCAs: cfg.RegistryCAs}), Audit: audit.NewStore(cfg.Pool), drain: cfg.Drain, auditRetention: cfg.AuditRetention, taskRetention: cfg.TaskRetention, watchHealth: cfg.Serves.WebServed()}
	defer func() {
		if err != nil {
			a.Close()
			a = nil
		}
	}()
	var ready []handlers.ReadyCheck
	a.Cluster = cfg.Cluster
	if a.Cluster == nil && !cfg.NoCluster {
		client, check, err := connectCluster(ctx, cfg.Kubeconfig, cfg.KubeContext, logger)
		if err != nil {
			return a, err
		}
		clusterOpts := cfg.ClusterOptions
		// A process that works no task and runs no action's Job reads and dry-runs as the reviewer.
		clusterOpts.ReviewOnly = !cfg.Work && cfg.Serves != handlers.ServeActions
		if a.Cluster, err = clusterOf(client, clusterOpts, logger); err != nil {
			return a, err
		}
		ready = check
	}
	box, err := openBox(ctx, cfg)
	if err != nil {
		return a, err
	}
	opts := cfg.Executor
	opts.Logger, opts.Work = logger, cfg.Work
	opts.Events = &webhooks.TaskEvents{BaseURL: webhookBase(cfg)}
	opts.Extra = webhooks.NewDeliverer(cfg.Pool, box, logger)
	var jobObserver deployment.JobObserver
	var healthObserver deployment.HealthObserver
	var actionObserver runner.ActionObserver
	if cfg.Metrics != nil {
		opts.Observer, jobObserver, healthObserver, actionObserver = cfg.Metrics, cfg.Metrics, cfg.Metrics, cfg.Metrics
	}
	if a.Queue, err = executor.New(cfg.Pool, opts); err != nil {
		return a, err
	}
	if cfg.Metrics != nil {
		if err := cfg.Metrics.WatchQueue(db.New(cfg.Pool), a.Queue, logger); err != nil {
			return a, err
		}
		cfg.Metrics.WatchCache("driver_specs", a.Catalog.SpecCacheStats)
	}
	a.Webhooks = webhooks.NewStore(cfg.Pool, box, a.Queue, webhooks.Rules{CheckDeploymentName: deployment.CheckDeploymentName, TaskKinds: deployment.TaskKinds()})
	actionsCfg, err := a.actions(ctx, cfg)
	if err != nil {
		return a, err
	}
	a.Deployments = deployment.New(deployment.Config{Pool: cfg.Pool, Catalog: a.Catalog, Queue: a.Queue, Box: box,
		Cluster: a.Cluster, Logger: logger, Observer: jobObserver, HealthObserver: healthObserver,
		HealthEvents: &webhooks.DeploymentEvents{BaseURL: webhookBase(cfg), Jobs: a.Queue}})
	if err := deployment.RecordSecretNames(ctx, db.New(cfg.Pool), box); err != nil {
		return a, err
	}
	a.Runners = runner.New(runner.Config{Deployments: a.Deployments, Pool: cfg.Pool, Catalog: a.Catalog, Box: box,
		Actions: actionsCfg, Logger: logger, Observer: actionObserver})
	a.Schedules = schedule.NewService(cfg.Pool, a.Deployments, box)
	a.Sources = source.New(cfg.Pool, a.Catalog, release.ChartFetcher{RootCAs: cfg.RegistryCAs})
	a.Teams = teams.NewStore(cfg.Pool)
	if cfg.Work {
		if a.Worker, err = executor.NewWorker(a.Queue, a.Runners.ByKind(), a.Deployments.TaskSecrets); err != nil {
			return a, err
		}
		a.ScheduleRunner = schedule.NewRunner(cfg.Pool, a.Deployments, box, logger)
	}
	if cfg.Serve {
		ready = append([]handlers.ReadyCheck{{Name: "database", Check: cfg.Pool.Ping}}, ready...)
		if err := a.serve(ctx, cfg, ready); err != nil {
			return a, err
		}
	}
	return a, nil
}

// openBox returns the box of cfg's secret keys, once the database has
// confirmed one of them is the key its secrets were sealed with.
func openBox(ctx context.Context, cfg Config) (*secrets.Box, error) {
	return secrets.OpenBox(ctx, db.New(cfg.Pool), secrets.KeyConfig{
		Key: cfg.SecretKey, KeyFile: cfg.SecretKeyFile,
		PreviousKeys: cfg.PreviousSecretKeys, PreviousKeyFile: cfg.PreviousSecretKeyFile,
	})
}

// clusterOf is the deployments' cluster of client; nil when client is nil.
func clusterOf(client *kube.Client, opts deployment.ClusterOptions, logger *slog.Logger) (*deployment.Cluster, error) {
	if client == nil {
		return nil, nil
	}
	return deployment.NewCluster(client, opts, logger)
}

// actions is how the runners run driver actions calling back the action
// API (none when cfg.ActionsURL is empty). The pod runtime needs a cluster
// and an image; the process runtime python3 (a warning and no actions when
// it is missing; hook steps then say so) and the styrmin package written to
// a temporary folder that Close removes.
func (a *App) actions(ctx context.Context, cfg Config) (*runner.ActionsConfig, error) {
	if cfg.ActionsURL == "" {
		return nil, nil
	}
	switch cfg.ActionRuntime {
	case actions.RuntimePod:
		if cfg.ActionImage == "" {
			return nil, errors.New("the pod action runtime needs the action-runner image (--action-image, STYRMIN_ACTION_IMAGE)")
		}
		if a.Cluster == nil || a.Cluster.Kube == nil {
			a.Logger.Warn("driver actions cannot run", "error", "the pod action runtime needs a cluster, and none is configured")
			return nil, nil
		}
		apiURL := cfg.ActionAPIURL
		if apiURL == "" {
			apiURL = cfg.ActionsURL
		}
		pod := &actions.Pod{Client: a.Cluster.Kube.Clientset, Image: cfg.ActionImage}
		if len(cfg.ActionResources.Limits) > 0 {
			pod.Resources = &cfg.ActionResources
		}
		return &runner.ActionsConfig{Runtime: pod, APIURL: apiURL}, nil
	case actions.RuntimeProcess, "":
	default:
		return nil, fmt.Errorf("unknown action runtime %q: give %s or %s (--action-runtime, STYRMIN_ACTION_RUNTIME)", cfg.ActionRuntime, actions.RuntimePod, actions.RuntimeProcess)
	}
	python, err := actions.FindPython(ctx)
	if err != nil {
		a.Logger.Warn("driver actions cannot run", "error", err)
		return nil, nil
	}
	if !actions.Sandboxed() {
		a.Logger.Warn("driver actions run without a sandbox", "missing", actions.MissingProtections)
	}
	if a.sdkDir, err = os.MkdirTemp("", "styrmin-sdk-"); err != nil {
		return nil, fmt.Errorf("actions: %w", err)
	}
	if err := sdk.Install(a.sdkDir); err != nil {
		return nil, err
	}
	return &runner.ActionsConfig{Runtime: actions.Process{}, Python: python, SDK: a.sdkDir, APIURL: cfg.ActionsURL}, nil
}

// serve builds the web app: users, sessions and API tokens, kept in memory
// while the database's change notifications arrive (and read from it on
// every request while they do not), and the handler over them.
func (a *App) serve(ctx context.Context, cfg Config, ready []handlers.ReadyCheck) error {
	usersOpts := cfg.UsersOptions
	if cfg.Metrics != nil {
		usersOpts = append(slices.Clip(usersOpts), auth.WithSigninObserver(cfg.Metrics))
	}
	if cfg.LocalSignin != "" {
		usersOpts = append(slices.Clip(usersOpts), auth.WithLocalSignin(cfg.LocalSignin))
	}
	users, err := auth.NewUsers(cfg.Pool, usersOpts...)
	if err != nil {
		return err
	}
	secret, err := auth.SessionSecret(ctx, db.New(cfg.Pool), cfg.SessionKey)
	if err != nil {
		return err
	}
	sessions, err := auth.NewSessions(secret, cfg.Pool)
	if err != nil {
		return err
	}
	if cfg.ExternalURL != nil && cfg.ExternalURL.Scheme == "https" {
		sessions.SecureCookies()
	}
	tokens := auth.NewAPITokens(cfg.Pool)
	users.InformSessions(sessions)
	users.InformAPITokens(tokens)
	notifications := db.NewListener(cfg.Pool, a.Logger)
	sessions.ListenOn(notifications)
	tokens.ListenOn(notifications)
	a.Catalog.ListenOn(notifications)
	a.Users, a.Sessions, a.APITokens, a.Notifications = users, sessions, tokens, notifications
	a.Deps = handlers.Deps{
		Logger: a.Logger, Sessions: sessions, Users: users, Ready: ready, Drivers: a.Catalog, ChartHosts: a.Catalog,
		Deployments: a.Deployments, Primitives: a.Deployments, SimulatedCluster: a.simulated(ctx), APITokens: tokens,
		Webhooks: a.Webhooks, Audit: a.Audit, Schedules: a.Schedules, Sources: a.Sources, Teams: a.Teams, TrustedProxies: cfg.TrustedProxies, Serves: cfg.Serves,
	}
	if cfg.Metrics != nil {
		a.Deps.Requests, a.Deps.Caches = cfg.Metrics, cfg.Metrics
		cfg.Metrics.WatchCache("sessions", sessions.CacheStats)
		cfg.Metrics.WatchCache("api_tokens", tokens.CacheStats)
		if err := cfg.Metrics.WatchDeploymentHealth(a.deploymentHealths); err != nil {
			return err
		}
	}
	if cfg.SSO != nil {
		if a.SSO, err = sso.New(*cfg.SSO, cfg.Pool); err != nil {
			return err
		}
		if err := a.SSO.Discover(ctx); err != nil {
			a.Logger.Warn("single sign-on is unavailable until the identity provider answers; local sign-in works", "err", err)
		}
		a.warnOfUnknownTeams(ctx, cfg.SSO.Teams.Teams())
		a.Deps.SSO = a.SSO
	}
	a.Handler = handlers.New(a.Deps)
	return nil
}

// warnOfUnknownTeams logs each team single sign-on maps groups to that does
// not exist: its groups give nothing until an admin creates it (a team
// created or deleted while Styrmin runs is no reason to refuse to start).
func (a *App) warnOfUnknownTeams(ctx context.Context, mapped []string) {
	if len(mapped) == 0 {
		return
	}
	known, err := a.Teams.List(ctx)
	if err != nil {
		a.Logger.Warn("single sign-on: the teams its groups map to could not be read", "err", err)
		return
	}
	for _, name := range mapped {
		if !slices.ContainsFunc(known, func(t teams.Team) bool { return t.Name == name }) {
			a.Logger.Warn("single sign-on maps groups to a team that does not exist; they give no role in it until an admin creates it (styrmin team create)", "team", name)
		}
	}
}

// Run runs the app's background work until ctx ends: the web app's change
// notifications, hourly clean-up and deployments' health and drift reads
// (deployment.Service.WatchHealth, WatchDrift) when it serves the web app, and, when it works
// tasks, the worker (which then lets running tasks finish for up to
// Config.Drain) with the hourly prunes of the audit log and of old tasks,
// the scheduled actions' runs (schedule.Runner), the catalogue sources' syncs
// (source.Service.Run) and, once, the
// deployments' identities (EnsureIdentities).
// It returns once all of it has stopped.
func (a *App) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	if a.Notifications != nil {
		wg.Add(2)
		go func() { defer wg.Done(); a.Notifications.Run(ctx) }()
		go func() { defer wg.Done(); forgetStale(ctx, a.Users, a.Sessions, a.SSO, a.Logger) }()
		if a.watchHealth {
			wg.Add(2)
			go func() { defer wg.Done(); a.Deployments.WatchHealth(ctx) }()
			go func() { defer wg.Done(); a.Deployments.WatchDrift(ctx) }()
		}
	}
	var err error
	if a.Worker != nil {
		wg.Add(5)
		go func() { defer wg.Done(); a.ScheduleRunner.Run(ctx) }()
		go func() { defer wg.Done(); a.Sources.Run(ctx, a.Logger) }()
		go func() { defer wg.Done(); a.Audit.PruneEvery(ctx, a.auditRetention, time.Hour, a.Logger) }()
		go func() { defer wg.Done(); a.Queue.PruneEvery(ctx, a.taskRetention, time.Hour) }()
		go func() { defer wg.Done(); a.Deployments.EnsureIdentities(ctx) }()
		err = runWorker(ctx, a.Worker, a.drain, a.Logger)
	} else {
		<-ctx.Done()
	}
	wg.Wait()
	return err
}

// Close removes what New wrote on disk (the actions' Python package) and
// stops the cluster's watches.
func (a *App) Close() {
	if a.Cluster != nil && a.Cluster.Watches != nil {
		a.Cluster.Watches.Stop()
	}
	if a.sdkDir != "" {
		if err := os.RemoveAll(a.sdkDir); err != nil && !errors.Is(err, os.ErrNotExist) {
			a.Logger.Warn("remove the actions' Python package", "dir", a.sdkDir, "err", err)
		}
	}
}

// deploymentHealths are the deployments' newest health words, for the metric.
func (a *App) deploymentHealths() []metrics.DeploymentHealth {
	var out []metrics.DeploymentHealth
	for _, h := range a.Deployments.Healths() {
		out = append(out, metrics.DeploymentHealth{Deployment: h.Name, Driver: h.Driver, Health: string(h.Word)})
	}
	return out
}

// webhookBase is the base URL of the task pages that webhook deliveries link.
func webhookBase(cfg Config) string {
	if cfg.ExternalURL != nil {
		return cfg.ExternalURL.String()
	}
	return cfg.ActionsURL
}
