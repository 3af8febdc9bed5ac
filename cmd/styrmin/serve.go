package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/app"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/handlers/action"
)

// serveConfig is the server's configuration, from flags and STYRMIN_* variables.
type serveConfig struct {
	addr string
	// actionAddr, when set, is a second address that serves the action API
	// only: where action pods call back when they cannot reach addr (make
	// run's pods reach the host's end of the local cluster's link, not its
	// loopback).
	actionAddr    string
	databaseURL   string
	sessionKey    string
	adminPassword string
	driversDir    string
	// driversDev re-imports a changed folder of driversDir as a development
	// build of its version while the server runs.
	driversDev bool
	logFormat  string
	logLevel   string
	// tlsCert and tlsKey are PEM files; with both set the server speaks HTTPS
	// only, and session cookies are Secure.
	tlsCert string
	tlsKey  string
	deploy  deployConfig
	// noExecutor leaves running tasks to `styrmin worker` processes.
	noExecutor bool
	// serves is --serve: handlers.ParsePart's name of what to serve.
	serves string
	// limits bounds each connection; zero means defaultConnLimits (tests set
	// short ones).
	limits connLimits
	// metricsAddr serves /metrics; empty, nowhere.
	metricsAddr string
	// trustedProxies are the CIDRs whose forwarding headers are believed.
	trustedProxies string
	// sso is single sign-on's and password sign-in's configuration.
	sso ssoConfig
}

// connLimits bounds what one client connection may hold of the server.
type connLimits struct {
	// readHeader is the time to send the request line and headers.
	readHeader time.Duration
	// read is the time to send the whole request, body included: a body that
	// stalls ends the connection.
	read time.Duration
	// write is the time from the end of the request's headers to the end of
	// the response. A streaming route (server-sent events, a live log) must
	// lift it for its own response, and only there:
	//	http.NewResponseController(c.Response()).SetWriteDeadline(time.Time{})
	// (echo's Response unwraps to the http.ResponseWriter, so this works
	// through the middleware), renewing a deadline per message if it wants one.
	write time.Duration
	// idle is how long a kept-alive connection waits for its next request.
	idle time.Duration
	// maxHeaderBytes caps the request line and headers; beyond it the answer is 431.
	maxHeaderBytes int
}

// defaultConnLimits returns the server's limits on each connection: the one
// place they are set. read allows a 16 MiB driver upload at about 1.2 Mbit/s.
func defaultConnLimits() connLimits {
	return connLimits{
		readHeader:     10 * time.Second,
		read:           2 * time.Minute,
		write:          2 * time.Minute,
		idle:           2 * time.Minute,
		maxHeaderBytes: 64 << 10,
	}
}

func newServeCmd() *cobra.Command {
	var cfg serveConfig
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the web server (migrates the database first)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := shield(); err != nil {
				return err
			}
			return runServe(cmd.Context(), cfg, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.addr, "addr", envOr("STYRMIN_ADDR", "127.0.0.1:8080"), "address to listen on (env STYRMIN_ADDR)")
	f.StringVar(&cfg.actionAddr, "action-addr", os.Getenv("STYRMIN_ACTION_ADDR"),
		"a second address to listen on, serving only the action API that action pods call, such as an address of this host the cluster's pods reach while --addr stays on loopback; --action-api-url defaults to it (env STYRMIN_ACTION_ADDR)")
	addDatabaseFlag(cmd, &cfg.databaseURL)
	f.StringVar(&cfg.sessionKey, "session-key", os.Getenv("STYRMIN_SESSION_KEY"),
		"secret of at least 32 characters that signs session cookies; generated once and kept in the database when empty (env STYRMIN_SESSION_KEY)")
	addSecretFileFlag(cmd, "session-key", "STYRMIN_SESSION_KEY", &cfg.sessionKey)
	f.StringVar(&cfg.adminPassword, "admin-password", os.Getenv("STYRMIN_ADMIN_PASSWORD"),
		"password of the first admin, created when there are no users; generated and printed once when empty (env STYRMIN_ADMIN_PASSWORD)")
	f.StringVar(&cfg.driversDir, "drivers-dir", os.Getenv("STYRMIN_DRIVERS_DIR"), "folder of extra driver bundles imported at start (env STYRMIN_DRIVERS_DIR)")
	f.BoolVar(&cfg.driversDev, "drivers-dev", os.Getenv("STYRMIN_DRIVERS_DEV") == "true",
		"for driver authors: import a folder of --drivers-dir whose version is already in the catalogue with other content as a development build of it (1.2.0+dev.1, +dev.2...), and import the folder again whenever its files change while the server runs (env STYRMIN_DRIVERS_DEV=true)")
	addLogFlags(cmd, &cfg.logFormat, &cfg.logLevel)
	f.StringVar(&cfg.tlsCert, "tls-cert", os.Getenv("STYRMIN_TLS_CERT"), "PEM certificate (chain) to serve HTTPS with; needs --tls-key (env STYRMIN_TLS_CERT)")
	f.StringVar(&cfg.tlsKey, "tls-key", os.Getenv("STYRMIN_TLS_KEY"), "PEM private key of --tls-cert (env STYRMIN_TLS_KEY)")
	f.BoolVar(&cfg.noExecutor, "no-executor", false, "serve pages only; `styrmin worker` processes run the tasks")
	f.StringVar(&cfg.serves, "serve", os.Getenv("STYRMIN_SERVE"),
		"what to serve: all (the pages, the REST API and the action API), web (the pages and the REST API; the action API's paths answer 404) or actions (the action API only, acting as each namespace's deployer; no deployment health is watched) (env STYRMIN_SERVE)")
	addDeployFlags(cmd, &cfg.deploy)
	addMetricsFlag(cmd, &cfg.metricsAddr, "127.0.0.1:9090")
	f.StringVar(&cfg.trustedProxies, "trusted-proxies", os.Getenv("STYRMIN_TRUSTED_PROXIES"),
		"comma-separated CIDRs of the reverse proxies in front of the server, whose X-Forwarded-For and X-Forwarded-Proto are believed (env STYRMIN_TRUSTED_PROXIES)")
	addSSOFlags(cmd, &cfg.sso)
	return cmd
}

// runServe builds the app (app.New), serves until ctx ends, then shuts down gracefully.
func runServe(ctx context.Context, cfg serveConfig, stdout, stderr io.Writer) error {
	logger, err := newLogger(cfg.logFormat, cfg.logLevel, stderr)
	if err != nil {
		return err
	}
	tlsConfig, err := loadTLS(cfg.tlsCert, cfg.tlsKey)
	if err != nil {
		return err
	}
	proxies, err := handlers.ParseTrustedProxies(cfg.trustedProxies)
	if err != nil {
		return fmt.Errorf("--trusted-proxies (STYRMIN_TRUSTED_PROXIES): %w", err)
	}
	serves, err := handlers.ParsePart(cfg.serves)
	if err != nil {
		return fmt.Errorf("--serve (STYRMIN_SERVE): %w", err)
	}
	pool, err := openDatabase(ctx, cfg.databaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	applied, err := db.Migrate(ctx, pool)
	if err != nil {
		return err
	}
	for _, m := range applied {
		logger.Info("migration applied", "version", m.Version, "name", m.Name)
	}
	if cfg.deploy.apiURL == "" {
		cfg.deploy.apiURL = ownURL(cfg.addr, tlsConfig != nil)
	}
	if cfg.actionAddr != "" && cfg.deploy.actionAPIURL == "" {
		cfg.deploy.actionAPIURL = ownURL(cfg.actionAddr, tlsConfig != nil)
	}
	bgCtx, stopBackground := context.WithCancel(ctx)
	m, waitMetrics, err := startMetrics(bgCtx, cfg.metricsAddr, logger)
	if err != nil {
		stopBackground()
		return err
	}
	defer func() { stopBackground(); _ = waitMetrics() }() // the normal path below returns its error
	appCfg, err := cfg.deploy.appConfig(pool, logger, !cfg.noExecutor)
	if err != nil {
		return err
	}
	appCfg.Serve, appCfg.SessionKey, appCfg.Metrics = true, cfg.sessionKey, m
	appCfg.Serves = serves
	appCfg.TrustedProxies = proxies
	if appCfg.SSO, err = cfg.sso.config(appCfg.ExternalURL, cfg.deploy.apiURL); err != nil {
		return err
	}
	if appCfg.LocalSignin, err = auth.ParseLocalSignin(cfg.sso.localSignin); err != nil {
		return fmt.Errorf("--local-sign-in (STYRMIN_LOCAL_SIGN_IN): %w", err)
	}
	a, err := app.New(ctx, appCfg)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := firstRun(ctx, a, cfg, stdout); err != nil {
		return err
	}

	background := make(chan error, 1)
	go func() { background <- a.Run(bgCtx) }()
	watched := watchDrivers(bgCtx, a.Catalog, cfg, a.Logger)
	limits := cfg.limits
	if limits == (connLimits{}) {
		limits = defaultConnLimits()
	}
	endpoints := []endpoint{{addr: cfg.addr, flag: "--addr or STYRMIN_ADDR", handler: a.Handler}}
	if cfg.actionAddr != "" {
		endpoints = append(endpoints, endpoint{addr: cfg.actionAddr, flag: "--action-addr or STYRMIN_ACTION_ADDR", handler: actionAPIOnly(a.Handler), what: "action API only"})
	}
	serveErr := listenAndServe(ctx, endpoints, tlsConfig, limits, logger)
	stopBackground()
	<-watched
	return errors.Join(serveErr, <-background, waitMetrics())
}

// firstRun creates the first admin when there are no users, and imports the
// bundled drivers and those of cfg's folder.
func firstRun(ctx context.Context, a *app.App, cfg serveConfig, stdout io.Writer) error {
	created, password, err := a.Users.EnsureAdmin(ctx, cfg.adminPassword)
	if err != nil {
		return fmt.Errorf("first admin (STYRMIN_ADMIN_PASSWORD): %w", err)
	}
	if created {
		announceAdmin(stdout, password, cfg.adminPassword == "")
		a.Logger.Info("first admin created", "username", "admin")
	}
	return importDrivers(ctx, a.Catalog, cfg.driversDir, folderChanges(cfg), a.Logger)
}

// loadTLS returns the TLS configuration of the certificate and key files, or
// nil when neither is set.
func loadTLS(certFile, keyFile string) (*tls.Config, error) {
	if certFile == "" && keyFile == "" {
		return nil, nil
	}
	if certFile == "" || keyFile == "" {
		return nil, errors.New("HTTPS needs both a certificate and its key: set --tls-cert and --tls-key (STYRMIN_TLS_CERT, STYRMIN_TLS_KEY), or neither for plain HTTP")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("load the TLS certificate %s and key %s: %w", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// endpoint is an address the server listens on and what it serves there.
type endpoint struct {
	addr    string
	flag    string // the flag and variable that set addr, for messages
	handler http.Handler
	what    string // what the address serves when not everything, for the log
}

// actionAPIOnly serves h's action API (action.Prefix) and answers 404 to
// every other path, such as the pages and the REST API.
func actionAPIOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isActionPath(echo.GetPath(r), r.URL.Path) {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// isActionPath reports whether routed, the path Echo routes a request on (its
// raw path when it has one), is under action.Prefix and in its plain form:
// the same as decoded, the request's decoded path (nothing escaped that need
// not be, such as %2F or %2E), and as its cleaned form (no empty, "." or ".."
// segment). Any other form may be judged on one path and routed on another.
func isActionPath(routed, decoded string) bool {
	return routed == decoded && path.Clean(routed) == routed && strings.HasPrefix(routed, action.Prefix)
}

// listenAndServe serves every endpoint, over TLS when tlsConfig is set and
// within limits, until ctx ends or one of them fails, then lets running
// requests finish for up to 30 seconds.
func listenAndServe(ctx context.Context, endpoints []endpoint, tlsConfig *tls.Config, limits connLimits, logger *slog.Logger) error {
	listeners := make([]net.Listener, 0, len(endpoints))
	defer func() {
		for _, ln := range listeners {
			ln.Close() // those a server did not take over
		}
	}()
	for _, e := range endpoints {
		ln, err := net.Listen("tcp", e.addr)
		if err != nil {
			return fmt.Errorf("listen on %s: %w (is another server running there? choose another with %s)", e.addr, err, e.flag)
		}
		listeners = append(listeners, ln)
	}
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	servers := make([]*http.Server, len(endpoints))
	served := make(chan error, len(endpoints))
	for i, e := range endpoints {
		ln := listeners[i]
		if tlsConfig != nil {
			ln = tls.NewListener(ln, tlsConfig)
		}
		servers[i] = &http.Server{
			Handler:           e.handler,
			ReadHeaderTimeout: limits.readHeader,
			ReadTimeout:       limits.read,
			WriteTimeout:      limits.write,
			IdleTimeout:       limits.idle,
			MaxHeaderBytes:    limits.maxHeaderBytes,
			ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		}
		go func() { served <- servers[i].Serve(ln) }()
		attrs := []any{"url", scheme + "://" + ln.Addr().String()}
		if e.what != "" {
			attrs = append(attrs, "serving", e.what)
		}
		logger.Info("listening", attrs...)
	}

	var errs []error
	running := len(servers)
	select {
	case err := <-served:
		running--
		errs = append(errs, fmt.Errorf("serve: %w", err))
	case <-ctx.Done():
		logger.Info("shutting down")
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, srv := range servers {
		if err := srv.Shutdown(shutdownCtx); err != nil {
			errs = append(errs, fmt.Errorf("shutdown: %w", err))
		}
	}
	for range running {
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, fmt.Errorf("serve: %w", err))
		}
	}
	if len(errs) == 0 {
		logger.Info("stopped")
	}
	return errors.Join(errs...)
}

// addLogFlags adds --log-format and --log-level, what newLogger takes.
func addLogFlags(cmd *cobra.Command, format, level *string) {
	cmd.Flags().StringVar(format, "log-format", envOr("STYRMIN_LOG_FORMAT", "text"), "log format: text or json (env STYRMIN_LOG_FORMAT)")
	cmd.Flags().StringVar(level, "log-level", envOr("STYRMIN_LOG_LEVEL", "info"), "the least level logged: debug, info, warn or error (env STYRMIN_LOG_LEVEL)")
}

// newLogger returns the structured logger in format "text" or "json" that
// writes the lines of level and above (empty: info).
func newLogger(format, level string, w io.Writer) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if level != "" {
		var l slog.Level
		if err := l.UnmarshalText([]byte(level)); err != nil {
			return nil, fmt.Errorf("unknown log level %q: use debug, info, warn or error", level)
		}
		opts.Level = l
	}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	default:
		return nil, fmt.Errorf("unknown log format %q: use text or json", format)
	}
}

// announceAdmin prints the first admin's credentials, once.
func announceAdmin(w io.Writer, password string, generated bool) {
	fmt.Fprintln(w, "================================================================")
	fmt.Fprintln(w, " First run: created the user \"admin\".")
	if generated {
		fmt.Fprintf(w, " Password: %s\n", password)
		fmt.Fprintln(w, " It is shown only this once; change it under your name, Password (/account/password).")
	} else {
		fmt.Fprintln(w, " Password: the value of STYRMIN_ADMIN_PASSWORD.")
	}
	fmt.Fprintln(w, "================================================================")
}
