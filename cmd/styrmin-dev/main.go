// Command styrmin-dev is what `make run` runs: it starts what Styrmin needs on
// a developer's machine when nothing is configured, then runs `styrmin serve`.
//
// Without STYRMIN_DATABASE_URL it starts (or reuses) a private PostgreSQL in
// .dev/postgres from the installed server binaries, creates the database
// "styrmin" in it, and passes its URL to the server. It prints the database's
// URL (a configured one without its password) with the command that creates
// an API token on it. The server is built into .dev/bin/styrmin and runs as a
// child process; Ctrl-C or SIGTERM stops the server gracefully, then the
// PostgreSQL this command started.
//
// Without STYRMIN_SECRET_KEY (or _FILE) it generates a key for secret
// parameters in .dev/secret-key on first use and passes its path.
//
// With STYRMIN_DEV_OIDC=dex (`make run OIDC=dex`) it builds and starts Dex
// with tools/dex/dev-config.yaml and has the server sign people in through it.
//
// Without KUBECONFIG it starts (or reuses) the local Kubernetes cluster in
// .cluster (see devcluster; built on first use) and passes .cluster/kubeconfig
// to the server; it stops the cluster on exit if it started it. On the
// cluster's real node, driver actions run as pods (the pod runtime, as in
// production) of the action-runner image it builds into the node, unless
// STYRMIN_ACTION_RUNTIME says otherwise; on the simulated node they run as
// processes.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/styrmin/styrmin/pglocal"
	"github.com/styrmin/styrmin/secrets"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "run" {
		fmt.Fprintln(os.Stderr, "usage: styrmin-dev run [styrmin serve flags...]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "styrmin-dev:", err)
		os.Exit(1)
	}
}

// run prepares the database, builds the server and runs it until ctx ends.
func run(ctx context.Context, serveArgs []string) error {
	root, err := findRoot()
	if err != nil {
		return err
	}
	env := os.Environ()
	databaseURL, private := os.Getenv("STYRMIN_DATABASE_URL"), false
	if databaseURL == "" {
		privateURL, stopDB, err := startDatabase(ctx, filepath.Join(root, ".dev", "postgres"))
		if err != nil {
			return err
		}
		defer stopDB()
		env = append(env, "STYRMIN_DATABASE_URL="+privateURL)
		databaseURL, private = privateURL, true
	}
	if os.Getenv("STYRMIN_SECRET_KEY") == "" && os.Getenv("STYRMIN_SECRET_KEY_FILE") == "" {
		keyFile, err := ensureSecretKey(filepath.Join(root, ".dev", "secret-key"))
		if err != nil {
			return err
		}
		env = append(env, "STYRMIN_SECRET_KEY_FILE="+keyFile)
	}
	if os.Getenv("KUBECONFIG") == "" {
		kubeconfig, actionSettings, stopCluster, err := startCluster(ctx, root)
		if err != nil {
			return err
		}
		defer stopCluster()
		env = append(env, "KUBECONFIG="+kubeconfig)
		env = append(env, actionSettings...)
	}
	switch os.Getenv("STYRMIN_DEV_OIDC") {
	case "":
	case "dex":
		settings, stopDex, err := startDex(ctx, root)
		if err != nil {
			return err
		}
		defer stopDex()
		env = append(env, settings...)
	default:
		return fmt.Errorf("STYRMIN_DEV_OIDC=%q: the one provider make run can start is dex", os.Getenv("STYRMIN_DEV_OIDC"))
	}
	bin := filepath.Join(root, ".dev", "bin", "styrmin")
	fmt.Fprintln(os.Stderr, "styrmin-dev: building", bin)
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/styrmin")
	build.Dir, build.Stdout, build.Stderr = root, os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build the server: %w", err)
	}
	announceDatabase(os.Stderr, databaseURL, private)
	return serve(ctx, bin, serveArgs, env)
}

// announceDatabase prints the database the server uses and how to reach it
// from the command line, such as to create an API token. The URL of a
// database the developer configured is printed without its password.
func announceDatabase(w io.Writer, databaseURL string, private bool) {
	shown := databaseURL
	if !private {
		if u, err := url.Parse(databaseURL); err == nil {
			shown = u.Redacted()
		} else {
			shown = "(STYRMIN_DATABASE_URL, which is not a URL)"
		}
	}
	fmt.Fprintln(w, "styrmin-dev: database:", shown)
	if private {
		fmt.Fprintf(w, "styrmin-dev: an API token for scripts: STYRMIN_DATABASE_URL='%s' go run ./cmd/styrmin token create --username admin\n", databaseURL)
	} else {
		fmt.Fprintln(w, "styrmin-dev: an API token for scripts: go run ./cmd/styrmin token create --username admin (with the same STYRMIN_DATABASE_URL)")
	}
}

// ensureSecretKey returns the key file at path, writing a new random key
// there on first use. The private database's secrets are sealed with it, so it
// lives beside .dev/postgres and goes with it.
func ensureSecretKey(path string) (string, error) {
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("secret key: %w", err)
	}
	if err := os.WriteFile(path, []byte(secrets.NewKeyText()+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("secret key: %w", err)
	}
	fmt.Fprintln(os.Stderr, "styrmin-dev: STYRMIN_SECRET_KEY is not set; generated a key for secret parameters in", path)
	return path, nil
}

// startDatabase starts or reuses the private PostgreSQL in dir and makes sure
// the database "styrmin" exists; stop stops the server if this call started it.
func startDatabase(ctx context.Context, dir string) (url string, stop func(), err error) {
	fmt.Fprintln(os.Stderr, "styrmin-dev: STYRMIN_DATABASE_URL is not set; using the private PostgreSQL in", dir)
	url, stopServer, err := pglocal.StartDatabase(ctx, pglocal.Options{Dir: dir}, "styrmin")
	if err != nil {
		return "", nil, err
	}
	return url, func() {
		if err := stopServer(); err != nil {
			fmt.Fprintln(os.Stderr, "styrmin-dev:", err)
		}
	}, nil
}

// serve runs `styrmin serve` and passes SIGINT/SIGTERM on as SIGTERM.
func serve(ctx context.Context, bin string, args, env []string) error {
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the server: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return serverResult(err)
	case <-ctx.Done():
		_ = cmd.Process.Signal(syscall.SIGTERM) // it may have got the terminal's SIGINT already
		return serverResult(<-done)
	}
}

func serverResult(err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return fmt.Errorf("the server stopped with %s", exit.ProcessState)
	}
	return err
}

// findRoot returns the repository root: the nearest folder upwards with sqlc.yaml and go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if fileExists(filepath.Join(dir, "go.mod")) && fileExists(filepath.Join(dir, "sqlc.yaml")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run this from the Styrmin checkout (no go.mod with sqlc.yaml found upwards)")
		}
		dir = parent
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
