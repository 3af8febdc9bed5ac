package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/handlers/action"
	"github.com/styrmin/styrmin/secrets"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testDeploy is the deployments' configuration of the tests' servers.
var testDeploy = deployConfig{keys: secrets.KeyConfig{Key: "c3R5cm1pbiB0ZXN0IHNlY3JldCBrZXkgMzIgYnl0ZXM="}, drainTimeout: time.Second}

// withExternalURL returns cfg with the external URL raw.
func withExternalURL(cfg deployConfig, raw string) deployConfig {
	cfg.externalURL = raw
	return cfg
}

// withActionPodMemory returns cfg whose action pods' memory limit is limit.
func withActionPodMemory(cfg deployConfig, limit string) deployConfig {
	cfg.actionPodMemory = limit
	return cfg
}

// withKubeconfig returns cfg deploying to the cluster of kubeconfig.
func withKubeconfig(cfg deployConfig, kubeconfig string) deployConfig {
	cfg.kubeconfig = kubeconfig
	return cfg
}

// freeAddr returns a loopback address with a port nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// startServe runs `styrmin serve` until the returned stop function is called;
// stop returns serve's result.
func startServe(t *testing.T, cfg serveConfig) (stdout, logs *syncBuffer, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, logs = &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, cfg, stdout, logs) }()

	deadline := time.Now().Add(2 * time.Minute)
	for {
		res, err := testClient.Get(serveURL(cfg) + "/healthz")
		if err == nil {
			res.Body.Close()
			break
		}
		select {
		case err := <-done:
			cancel()
			t.Fatalf("serve stopped: %v\n%s", err, logs.String())
		case <-time.After(100 * time.Millisecond):
		}
		require.True(t, time.Now().Before(deadline), "serve did not answer within 2 minutes:\n%s", logs.String())
	}
	var once sync.Once
	var result error
	stop = func() error {
		once.Do(func() {
			cancel()
			result = <-done
		})
		return result
	}
	t.Cleanup(func() { _ = stop() })
	return stdout, logs, stop
}

// testClient talks to test servers, including those serving HTTPS with a
// self-signed certificate.
var testClient = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}

// serveURL is the base URL of the server cfg configures.
func serveURL(cfg serveConfig) string {
	if cfg.tlsCert != "" {
		return "https://" + cfg.addr
	}
	return "http://" + cfg.addr
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := testClient.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(body)
}

func TestServeFirstRunAndGracefulShutdown(t *testing.T) {
	t.Parallel()
	cfg := serveConfig{addr: freeAddr(t), databaseURL: dbtest.NewURL(t), logFormat: "json", deploy: testDeploy}

	stdout, logs, stop := startServe(t, cfg)
	require.Contains(t, stdout.String(), `First run: created the user "admin".`)
	require.Regexp(t, `Password: \S{20,}`, stdout.String(), "the generated password is printed")

	status, body := get(t, "http://"+cfg.addr+"/readyz")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, `"database":"ok"`)
	res, err := testClient.Get("http://" + cfg.addr + "/signin")
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Empty(t, res.Header.Get("Strict-Transport-Security"), "no HSTS over plain HTTP")
	for _, c := range res.Cookies() {
		require.False(t, c.Secure, "cookie %s is not Secure over plain HTTP, or the browser would drop it", c.Name)
	}

	require.NoError(t, stop(), "SIGTERM (context end) shuts down cleanly")
	require.Contains(t, logs.String(), `"msg":"listening"`, "logs are structured JSON")
	require.Contains(t, logs.String(), `"msg":"stopped"`)

	cfg.addr = freeAddr(t)
	stdout, _, stop = startServe(t, cfg)
	require.NotContains(t, stdout.String(), "First run", "the admin is created once")
	require.NoError(t, stop())
}

// TestServeActionAddrServesOnlyTheActionAPI: the second address answers the
// action API (a call without a token is refused by it, not missing) and
// nothing else, even through dot segments and escaped slashes that clean to
// the action API while the REST API's routes match them (which would answer
// 401); the first serves everything.
func TestServeActionAddrServesOnlyTheActionAPI(t *testing.T) {
	t.Parallel()
	cfg := serveConfig{addr: freeAddr(t), actionAddr: freeAddr(t), databaseURL: dbtest.NewURL(t), logFormat: "json", deploy: testDeploy}
	_, logs, stop := startServe(t, cfg)

	actionBase := "http://" + cfg.actionAddr
	status, _ := get(t, actionBase+action.Prefix+"deployment")
	require.Equal(t, http.StatusUnauthorized, status, "the action API answers on the action address")
	for _, path := range []string{"/signin", "/healthz", "/api/v1/deployments", "/", action.Prefix + "../../signin", "/api/action/v1x",
		"/api/v1/deployments/..%2F..%2F..%2Fapi%2Faction%2Fv1%2Fdeployment", "/api/v1/deployments/%2e%2e%2f%2e%2e%2f%2e%2e%2fapi%2faction%2fv1%2fdeployment"} {
		status, _ := get(t, actionBase+path)
		require.Equal(t, http.StatusNotFound, status, "GET %s on the action address", path)
	}
	status, _ = get(t, "http://"+cfg.addr+"/signin")
	require.Equal(t, http.StatusOK, status, "the main address serves the pages")
	require.Contains(t, logs.String(), `"serving":"action API only"`)
	require.NoError(t, stop())
}

func TestServeOverTLSSetsSecureSessionCookies(t *testing.T) {
	t.Parallel()
	certFile, keyFile := selfSignedCertificate(t)
	cfg := serveConfig{addr: freeAddr(t), databaseURL: dbtest.NewURL(t), logFormat: "json", deploy: testDeploy, tlsCert: certFile, tlsKey: keyFile}
	_, logs, stop := startServe(t, cfg)
	require.Contains(t, logs.String(), `"url":"https://`)

	res, err := testClient.Get(serveURL(cfg) + "/signin")
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "max-age=31536000; includeSubDomains", res.Header.Get("Strict-Transport-Security"))
	require.NotEmpty(t, res.Cookies(), "the sign-in form's session carries its CSRF token")
	for _, c := range res.Cookies() {
		require.True(t, c.Secure, "cookie %s is Secure over HTTPS", c.Name)
		require.True(t, c.HttpOnly, "cookie %s is HttpOnly", c.Name)
	}
	require.NoError(t, stop())
}

// selfSignedCertificate writes a certificate for 127.0.0.1 and its key as PEM
// files and returns their paths.
func selfSignedCertificate(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "styrmin test"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600))
	return certFile, keyFile
}

func TestServeWithAdminPasswordFromTheEnvironment(t *testing.T) {
	t.Parallel()
	cfg := serveConfig{addr: freeAddr(t), databaseURL: dbtest.NewURL(t), logFormat: "text", deploy: testDeploy, adminPassword: "from the environment"}
	stdout, _, stop := startServe(t, cfg)
	require.Contains(t, stdout.String(), "Password: the value of STYRMIN_ADMIN_PASSWORD.")
	require.NotContains(t, stdout.String(), "from the environment", "the password itself is not printed")
	require.NoError(t, stop())
}

func TestServeRefusesBadConfiguration(t *testing.T) {
	t.Parallel()
	url := dbtest.NewURL(t)
	keyedURL := dbtest.NewURL(t)
	_, _, stop := startServe(t, serveConfig{addr: freeAddr(t), databaseURL: keyedURL, logFormat: "text", deploy: testDeploy})
	require.NoError(t, stop())
	tests := []struct {
		name string
		cfg  serveConfig
		want string
	}{
		{"no database", serveConfig{addr: "127.0.0.1:0", logFormat: "text", deploy: testDeploy}, "set STYRMIN_DATABASE_URL"},
		{"log format", serveConfig{addr: "127.0.0.1:0", databaseURL: url, logFormat: "xml", deploy: testDeploy}, `unknown log format "xml"`},
		{"log level", serveConfig{addr: "127.0.0.1:0", databaseURL: url, logFormat: "text", logLevel: "loud", deploy: testDeploy}, `unknown log level "loud": use debug, info, warn or error`},
		{"short session key", serveConfig{addr: "127.0.0.1:0", databaseURL: url, logFormat: "text", deploy: testDeploy, sessionKey: "short"}, "STYRMIN_SESSION_KEY has 5 characters"},
		{"short admin password", serveConfig{addr: "127.0.0.1:0", databaseURL: dbtest.NewURL(t), logFormat: "text", deploy: testDeploy, adminPassword: "short"}, "at least 10 characters"},
		{"bad address", serveConfig{addr: "127.0.0.1:http-alt-nope", databaseURL: url, logFormat: "text", deploy: testDeploy}, "listen on 127.0.0.1:http-alt-nope"},
		{"bad action address", serveConfig{addr: "127.0.0.1:0", actionAddr: "127.0.0.1:nope", databaseURL: url, logFormat: "text", deploy: testDeploy}, "choose another with --action-addr"},
		{"certificate without key", serveConfig{addr: "127.0.0.1:0", databaseURL: url, logFormat: "text", deploy: testDeploy, tlsCert: "cert.pem"}, "set --tls-cert and --tls-key"},
		{"missing certificate", serveConfig{addr: "127.0.0.1:0", databaseURL: url, logFormat: "text", deploy: testDeploy, tlsCert: "/nonexistent/cert.pem", tlsKey: "/nonexistent/key.pem"}, "load the TLS certificate /nonexistent/cert.pem"},
		{"no secret key", serveConfig{addr: "127.0.0.1:0", databaseURL: url, logFormat: "text"}, "set STYRMIN_SECRET_KEY or --secret-key-file"},
		{"secret key not base64", serveConfig{addr: "127.0.0.1:0", databaseURL: url, logFormat: "text", deploy: deployConfig{keys: secrets.KeyConfig{Key: "hunter2"}}}, "openssl rand -base64 32"},
		{"trusted proxies", serveConfig{addr: "127.0.0.1:0", databaseURL: url, logFormat: "text", deploy: testDeploy, trustedProxies: "10.0.0.0/8, ingress"}, `trusted proxy "ingress" is neither an address nor a CIDR`},
		{"part served", serveConfig{addr: "127.0.0.1:0", databaseURL: url, logFormat: "text", deploy: testDeploy, serves: "pages"}, `--serve (STYRMIN_SERVE): unknown part "pages": give all, web or actions`},
		{"external URL", serveConfig{addr: "127.0.0.1:0", databaseURL: url, logFormat: "text", deploy: withExternalURL(testDeploy, "styrmin.example.com")}, "give an absolute http or https URL"},
		{"action pod memory", serveConfig{addr: "127.0.0.1:0", databaseURL: url, logFormat: "text", deploy: withActionPodMemory(testDeploy, "lots")}, `--action-pod-cpu, --action-pod-memory: the action pods' memory limit "lots" is not a positive quantity`},
		{"metrics address", serveConfig{addr: "127.0.0.1:0", databaseURL: url, logFormat: "text", deploy: testDeploy, metricsAddr: "127.0.0.1:nope"}, "listen on 127.0.0.1:nope for metrics"},
		{"another secret key than the database's", serveConfig{addr: "127.0.0.1:0", databaseURL: keyedURL, logFormat: "text", deploy: deployConfig{keys: secrets.KeyConfig{Key: secrets.NewKeyText()}}}, "is the key this database's secrets were encrypted with"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := runServe(context.Background(), tt.cfg, io.Discard, io.Discard)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestMigrateAndUserCreateCommands(t *testing.T) {
	t.Parallel()
	url := dbtest.NewURL(t)
	run := func(args ...string) (string, error) {
		cmd := newRootCmdForTest()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(args)
		err := cmd.ExecuteContext(context.Background())
		return out.String(), err
	}

	out, err := run("migrate", "--database-url", url)
	require.NoError(t, err)
	require.Equal(t, "database schema is up to date\n", out, "dbtest databases are migrated already")

	out, err = run("user", "create", "--database-url", url, "--username", "Alice", "--role", "operator", "--password", "alice's password")
	require.NoError(t, err)
	require.Equal(t, "created user alice with the operator role\n", out)

	out, err = run("user", "create", "--database-url", url, "--username", "bob", "--role", "read-only")
	require.NoError(t, err)
	require.Regexp(t, `^created user bob with the read-only role\npassword: \S{20,}\n$`, out)

	_, err = run("user", "create", "--database-url", url, "--username", "alice", "--role", "admin", "--password", "another password")
	require.ErrorContains(t, err, `A user named "alice" already exists`)
	_, err = run("user", "create", "--database-url", url, "--username", "carol", "--role", "boss")
	require.ErrorContains(t, err, `unknown role "boss": use admin, operator, read-only or member`)
	_, err = run("user", "create", "--database-url", url, "--role", "admin")
	require.ErrorContains(t, err, `required flag(s) "username" not set`)
	_, err = run("migrate", "--database-url", "")
	require.ErrorContains(t, err, "set STYRMIN_DATABASE_URL")
	require.True(t, strings.Contains(err.Error(), "make run"))
}

// newRootCmdForTest is the part of the root command these tests run.
func newRootCmdForTest() *cobra.Command {
	root := &cobra.Command{Use: "styrmin", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(newMigrateCmd(), newUserCmd())
	return root
}

// TestServeBoundsEachConnection: a client that sends its headers and then
// stalls its body has its connection closed once the read limit passes
// (shortened here), and headers beyond the limit are answered 431.
func TestServeBoundsEachConnection(t *testing.T) {
	t.Parallel()
	limits := defaultConnLimits()
	limits.read = 500 * time.Millisecond
	cfg := serveConfig{addr: freeAddr(t), databaseURL: dbtest.NewURL(t), logFormat: "text", deploy: testDeploy, limits: limits}
	_, _, stop := startServe(t, cfg)

	conn, err := net.Dial("tcp", cfg.addr)
	require.NoError(t, err)
	defer conn.Close()
	// Only a guard, so that a server without the limit fails the test rather than hanging it.
	require.NoError(t, conn.SetDeadline(time.Now().Add(time.Minute)))
	_, err = fmt.Fprintf(conn, "POST /signin HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nusername=", cfg.addr)
	require.NoError(t, err)
	_, err = io.ReadAll(conn)
	require.NoError(t, err, "the server closes the connection of a stalled body (EOF), rather than holding it")

	req, err := http.NewRequest(http.MethodGet, serveURL(cfg)+"/healthz", nil)
	require.NoError(t, err)
	req.Header.Set("X-Padding", strings.Repeat("x", defaultConnLimits().maxHeaderBytes+8<<10))
	res, err := testClient.Do(req)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, res.StatusCode)
	require.NoError(t, stop())
}

func TestWorkerRunsTasksUntilStoppedAndNeedsTheSecretKey(t *testing.T) {
	t.Parallel()
	url := dbtest.NewURL(t)
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	metricsAddr := freeAddr(t)
	go func() {
		done <- runWorker(ctx, workerConfig{databaseURL: url, logFormat: "text", deploy: testDeploy, metricsAddr: metricsAddr}, logs)
	}()
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "executor started") }, time.Minute, 50*time.Millisecond, logs.String())
	status, body := get(t, "http://"+metricsAddr+"/metrics")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, "\nstyrmin_tasks_queued 0\n", "the worker exports the queue's depth")
	status, _ = get(t, "http://"+metricsAddr+"/readyz")
	require.Equal(t, http.StatusOK, status, "the worker's readiness probe, on its metrics address")
	cancel()
	require.NoError(t, <-done)
	require.Contains(t, logs.String(), "executor stopped")

	err := runWorker(context.Background(), workerConfig{databaseURL: url, logFormat: "text"}, io.Discard)
	require.ErrorContains(t, err, "set STYRMIN_SECRET_KEY or --secret-key-file")
}

// TestServeBehindAnHTTPSProxyWithMetrics: with an https external URL the
// session cookie is Secure although the server speaks plain HTTP, and
// /metrics answers on its own address, not on the web app's.
func TestServeBehindAnHTTPSProxyWithMetrics(t *testing.T) {
	t.Parallel()
	cfg := serveConfig{addr: freeAddr(t), databaseURL: dbtest.NewURL(t), logFormat: "text", deploy: withExternalURL(testDeploy, "https://styrmin.example.com"),
		metricsAddr: freeAddr(t), trustedProxies: "127.0.0.1"}
	_, _, stop := startServe(t, cfg)

	res, err := testClient.Get(serveURL(cfg) + "/signin")
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.NotEmpty(t, res.Cookies())
	for _, c := range res.Cookies() {
		require.True(t, c.Secure, "cookie %s is Secure behind an https external URL", c.Name)
	}
	status, _ := get(t, serveURL(cfg)+"/metrics")
	require.Equal(t, http.StatusNotFound, status, "the web app does not serve the metrics")
	status, body := get(t, "http://"+cfg.metricsAddr+"/metrics")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, `styrmin_http_requests_total{method="GET",route="/signin",status="200"} 1`)
	require.NoError(t, stop())
	_, err = testClient.Get("http://" + cfg.metricsAddr + "/metrics")
	require.Error(t, err, "the metrics server stops with serve")
}

// TestTheLogLevelKeepsTheLinesBelowItOut: --log-level warn keeps a request's
// info line out and its warnings in; debug lets debug lines through.
func TestTheLogLevelKeepsTheLinesBelowItOut(t *testing.T) {
	t.Parallel()
	for level, want := range map[string][]string{"warn": {"warning"}, "info": {"info", "warning"}, "debug": {"debug", "info", "warning"}} {
		var out bytes.Buffer
		logger, err := newLogger("text", level, &out)
		require.NoError(t, err)
		logger.Debug("debug")
		logger.Info("info")
		logger.Warn("warning")
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			got = append(got, line[strings.Index(line, "msg=")+len("msg="):])
		}
		require.Equal(t, want, got, "--log-level %s", level)
	}
}

// TestProbeSignsInAndReadsReadiness: `styrmin probe` (the chart's helm
// test) passes against a running server with the admin's password, and
// fails, saying why, with a wrong one or where no Styrmin answers.
func TestProbeSignsInAndReadsReadiness(t *testing.T) {
	t.Parallel()
	cfg := serveConfig{addr: freeAddr(t), databaseURL: dbtest.NewURL(t), logFormat: "text", deploy: withExternalURL(testDeploy, "https://styrmin.example.com"), adminPassword: "probe password"}
	startServe(t, cfg)
	ctx := context.Background()
	require.NoError(t, probe(ctx, serveURL(cfg), "admin", "probe password"), "Secure session cookies are carried over plain HTTP")
	require.ErrorContains(t, probe(ctx, serveURL(cfg), "admin", "wrong"), `signing in as "admin" was refused (401 Unauthorized)`)
	require.ErrorContains(t, probe(ctx, "http://"+freeAddr(t), "admin", "probe password"), "probe: GET /readyz")
}
