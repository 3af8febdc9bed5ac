package main

import (
	"cmp"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/app"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/deployer"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/secrets"
)

// deployConfig is what deployments need besides the database: the cluster,
// the key of secret parameters and how long a stopping executor lets tasks finish.
type deployConfig struct {
	kubeconfig   string
	kubeContext  string
	keys         secrets.KeyConfig
	drainTimeout time.Duration
	// apiURL is the base URL driver actions call back (their primitives).
	apiURL string
	// actionRuntime, actionImage and actionAPIURL say how driver actions
	// run: as a child process, or as a pod from actionImage that calls
	// actionAPIURL back (app.Config's fields of the same names).
	actionRuntime, actionImage, actionAPIURL string
	// actionPodCPU and actionPodMemory are the action pods' limits
	// (actions.PodResources; "" keeps the default).
	actionPodCPU, actionPodMemory string
	// externalURL is the URL users reach Styrmin at (through a proxy, say):
	// webhooks link task pages under it, and https makes cookies Secure.
	externalURL string
	// auditRetention is how long audit entries are kept (audit.ParseRetention).
	auditRetention string
	// taskRetention is how long ended tasks are kept (styrmin.ParseRetention).
	taskRetention string
	// podSecurity are the Pod Security levels of the namespaces Styrmin creates.
	podSecurity deployer.PodSecurity
	// helmMaxHistory bounds the revisions Helm keeps per release.
	helmMaxHistory int
	// deployersNamespace holds the deployers' ServiceAccounts.
	deployersNamespace string
	// registryCAFile holds PEM certificates trusted, besides the system's,
	// by downloads of remote charts and catalogue sources.
	registryCAFile string
}

// addDeployFlags adds the flags of deployConfig to cmd.
func addDeployFlags(cmd *cobra.Command, cfg *deployConfig) {
	f := cmd.Flags()
	f.StringVar(&cfg.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster to deploy to (env KUBECONFIG)")
	f.StringVar(&cfg.kubeContext, "kube-context", os.Getenv("STYRMIN_KUBE_CONTEXT"), "context of the kubeconfig to use instead of its current one (env STYRMIN_KUBE_CONTEXT)")
	addKeyFlags(cmd, &cfg.keys)
	f.DurationVar(&cfg.drainTimeout, "drain-timeout", 30*time.Second, "how long running tasks may go on after a stop signal before they are cancelled and recovered")
	f.StringVar(&cfg.apiURL, "api-url", os.Getenv("STYRMIN_API_URL"),
		"base URL at which driver actions reach this Styrmin's primitives; serve defaults to its own address (env STYRMIN_API_URL)")
	f.StringVar(&cfg.actionRuntime, "action-runtime", envOr("STYRMIN_ACTION_RUNTIME", actions.RuntimeProcess),
		"how driver actions run: pod (a pod per run in the deployment's namespace, from --action-image) or process (a child process of this one, sandboxed when it runs as root; for development) (env STYRMIN_ACTION_RUNTIME)")
	f.StringVar(&cfg.actionImage, "action-image", os.Getenv("STYRMIN_ACTION_IMAGE"),
		"the action-runner image of the pod runtime: Python 3 and the styrmin package (deploy/action-runner/Containerfile) (env STYRMIN_ACTION_IMAGE)")
	f.StringVar(&cfg.actionAPIURL, "action-api-url", os.Getenv("STYRMIN_ACTION_API_URL"),
		"base URL at which action pods reach this Styrmin's action API, such as http://styrmin.styrmin.svc.cluster.local:8080 (default --api-url) (env STYRMIN_ACTION_API_URL)")
	f.StringVar(&cfg.actionPodCPU, "action-pod-cpu", os.Getenv("STYRMIN_ACTION_POD_CPU"),
		"the CPU limit of each action pod, such as 2 or 500m (default 1; its request, 100m, is lowered to it) (env STYRMIN_ACTION_POD_CPU)")
	f.StringVar(&cfg.actionPodMemory, "action-pod-memory", os.Getenv("STYRMIN_ACTION_POD_MEMORY"),
		"the memory limit of each action pod, such as 1Gi (default 512Mi; its request, 128Mi, is lowered to it) (env STYRMIN_ACTION_POD_MEMORY)")
	f.StringVar(&cfg.externalURL, "external-url", os.Getenv("STYRMIN_EXTERNAL_URL"),
		"URL users reach Styrmin at, such as https://styrmin.example.com: webhook deliveries link task pages under it (default --api-url), and https makes session cookies Secure (env STYRMIN_EXTERNAL_URL)")
	f.StringVar(&cfg.auditRetention, "audit-retention", envOr("STYRMIN_AUDIT_RETENTION", audit.DefaultRetention),
		"how long the worker keeps audit log entries: days (90d), hours (36h), or 0 for forever (env STYRMIN_AUDIT_RETENTION)")
	f.StringVar(&cfg.taskRetention, "task-retention", envOr("STYRMIN_TASK_RETENTION", keepEveryTask),
		"how long the worker keeps ended tasks with their steps and logs: days (365d), hours, or 0 for forever; each deployment's last task stays (env STYRMIN_TASK_RETENTION)")
	f.StringVar(&cfg.podSecurity.Enforce, "pod-security-enforce", envOr("STYRMIN_POD_SECURITY_ENFORCE", deployer.LevelBaseline),
		"the Pod Security level the namespaces Styrmin creates enforce: privileged, baseline or restricted; an admin's approval of a driver's privileged pods relaxes it per namespace (env STYRMIN_POD_SECURITY_ENFORCE)")
	f.StringVar(&cfg.podSecurity.Warn, "pod-security-warn", envOr("STYRMIN_POD_SECURITY_WARN", deployer.LevelRestricted),
		"the Pod Security level the namespaces Styrmin creates warn about (env STYRMIN_POD_SECURITY_WARN)")
	f.IntVar(&cfg.helmMaxHistory, "helm-max-history", envInt("STYRMIN_HELM_MAX_HISTORY", release.DefaultMaxHistory),
		"how many revisions Helm keeps of each release; older ones, with their values, are deleted (env STYRMIN_HELM_MAX_HISTORY)")
	f.StringVar(&cfg.deployersNamespace, "deployers-namespace", envOr("STYRMIN_DEPLOYERS_NAMESPACE", deployer.DefaultNamespace),
		"the namespace of Styrmin's own that holds each deployed namespace's deployer (a ServiceAccount Styrmin acts as there) and nothing else; created when missing, never deployed to (env STYRMIN_DEPLOYERS_NAMESPACE)")
	f.StringVar(&cfg.registryCAFile, "registry-ca-file", os.Getenv("STYRMIN_REGISTRY_CA_FILE"),
		"PEM file of the certificates of the authorities that sign your registries' certificates (a private registry's own CA), trusted besides the system's when Styrmin downloads remote charts and reads catalogue sources (env STYRMIN_REGISTRY_CA_FILE)")
}

// registryCAs is the system's certificate pool with the certificates of the
// PEM file added, or nil (the system's alone) when file is empty.
func registryCAs(file string) (*x509.CertPool, error) {
	if file == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--registry-ca-file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--registry-ca-file %s: no PEM certificate in it: give the certificates of the authorities that sign your registries' certificates, PEM-encoded (-----BEGIN CERTIFICATE-----)", file)
	}
	return pool, nil
}

// envInt is the integer in the environment variable key, or fallback when it
// is unset or not an integer (the flag's parse then reports nothing: give the flag instead).
func envInt(key string, fallback int) int {
	if n, err := strconv.Atoi(os.Getenv(key)); err == nil {
		return n
	}
	return fallback
}

// keepEveryTask is the task retention that prunes nothing, the default.
const keepEveryTask = "0"

// appConfig is the app's configuration of cfg, on pool, working tasks when
// work is set; an external URL that is not absolute or a retention that does
// not parse is an error.
func (cfg deployConfig) appConfig(pool *pgxpool.Pool, logger *slog.Logger, work bool) (app.Config, error) {
	external, err := parseExternalURL(cfg.externalURL)
	if err != nil {
		return app.Config{}, err
	}
	retention, err := audit.ParseRetention(cfg.auditRetention)
	if err != nil {
		return app.Config{}, fmt.Errorf("--audit-retention: %w", err)
	}
	taskRetention, err := styrmin.ParseRetention("task retention", cmp.Or(strings.TrimSpace(cfg.taskRetention), keepEveryTask))
	if err != nil {
		return app.Config{}, fmt.Errorf("--task-retention: %w", err)
	}
	resources, err := actions.PodResources(cfg.actionPodCPU, cfg.actionPodMemory)
	if err != nil {
		return app.Config{}, fmt.Errorf("--action-pod-cpu, --action-pod-memory: %w", err)
	}
	if err := cfg.podSecurity.Validate(); err != nil {
		return app.Config{}, fmt.Errorf("--pod-security-enforce, --pod-security-warn: %w", err)
	}
	if cfg.helmMaxHistory < 0 {
		return app.Config{}, fmt.Errorf("--helm-max-history: %d: give how many revisions Helm keeps, 1 or more (0: the default, %d)", cfg.helmMaxHistory, release.DefaultMaxHistory)
	}
	cas, err := registryCAs(cfg.registryCAFile)
	if err != nil {
		return app.Config{}, err
	}
	return app.Config{
		Pool: pool, Logger: logger,
		SecretKey: cfg.keys.Key, SecretKeyFile: cfg.keys.KeyFile,
		PreviousSecretKeys: cfg.keys.PreviousKeys, PreviousSecretKeyFile: cfg.keys.PreviousKeyFile,
		Kubeconfig: cfg.kubeconfig, KubeContext: cfg.kubeContext,
		ActionsURL: cfg.apiURL, ActionRuntime: cfg.actionRuntime, ActionImage: cfg.actionImage, ActionAPIURL: cfg.actionAPIURL, ActionResources: resources, ExternalURL: external, Work: work, Drain: cfg.drainTimeout, AuditRetention: retention, TaskRetention: taskRetention,
		ClusterOptions: deployment.ClusterOptions{PodSecurity: cfg.podSecurity, DeployersNamespace: cfg.deployersNamespace, MaxHistory: cfg.helmMaxHistory},
		RegistryCAs:    cas,
	}, nil
}

// parseExternalURL checks the URL users reach the server at: absolute,
// http or https, without query or fragment. Empty gives nil.
func parseExternalURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("external URL %q: give an absolute http or https URL such as https://styrmin.example.com (--external-url, STYRMIN_EXTERNAL_URL)", raw)
	}
	return u, nil
}

// ownURL is the base URL of a server listening on addr, as a process on the
// same machine reaches it (a wildcard host becomes the loopback address).
func ownURL(addr string, tls bool) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
