// Package pglocal runs a private PostgreSQL cluster in a folder from the
// server binaries installed on the machine, for `make run` (StartDatabase),
// `styrmin driver test --cluster` (StartTemporary) and for tests.
//
// The cluster listens only on a unix socket inside its data folder and trusts
// local connections. When the caller is root, initdb and postgres run as the
// `postgres` user, since PostgreSQL refuses to run as root.
package pglocal

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Port names the socket file (.s.PGSQL.<Port>); nothing listens on TCP.
const Port = 5432

// maxSocketPath is the longest unix socket path Linux accepts, minus the terminating NUL.
const maxSocketPath = 107

// Options configures Start.
type Options struct {
	// Dir is the data folder; it is created and initialised when missing.
	Dir string
	// Fast turns off durability (fsync, full page writes) for throwaway test clusters.
	Fast bool
	// LogFile receives the server's output; empty means Dir/../<base>.log.
	LogFile string
}

// Cluster is a running private PostgreSQL.
type Cluster struct {
	dir string
	cmd *exec.Cmd // nil when Start found the cluster already running
	// exited is closed when the server started here has exited, with
	// exitErr, its Wait's error.
	exited  chan struct{}
	exitErr error
}

// Start initialises the data folder when needed and starts PostgreSQL on it, or
// reuses the server already running there. The server started here is a child
// process that stops when Stop is called or when the calling process dies.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("pglocal: %w", err)
	}
	if sock := filepath.Join(dir, ".s.PGSQL."+strconv.Itoa(Port)); len(sock) > maxSocketPath {
		return nil, fmt.Errorf("pglocal: socket path %s is longer than %d bytes; move the checkout to a shorter path", sock, maxSocketPath)
	}
	c := &Cluster{dir: dir}
	if c.ping(ctx) == nil {
		return c, nil
	}
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	owner, err := serverUser()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		if err := initdb(ctx, bin, dir, owner); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, fmt.Errorf("pglocal: %w", err)
	}
	if err := removeStalePID(dir); err != nil {
		return nil, err
	}
	logFile := opts.LogFile
	if logFile == "" {
		logFile = dir + ".log"
	}
	if err := c.start(bin, owner, logFile, opts.Fast); err != nil {
		return nil, err
	}
	if err := c.waitReady(ctx, logFile); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

// Dir returns the cluster's data folder.
func (c *Cluster) Dir() string { return c.dir }

// URL returns the connection URL of database name on the cluster, as the postgres superuser.
func (c *Cluster) URL(name string) string {
	q := url.Values{"host": {c.dir}, "port": {strconv.Itoa(Port)}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/" + name, RawQuery: q.Encode()}).String()
}

// Stop shuts the server down when this process started it; a reused server keeps running.
func (c *Cluster) Stop() error {
	if c.cmd == nil {
		return nil
	}
	// SIGINT is PostgreSQL's "fast" shutdown: abort transactions, checkpoint, exit.
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("pglocal: stop: %w", err)
	}
	select {
	case <-c.exited: // at once when an earlier Stop stopped it
		return nil
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		return errors.New("pglocal: stop: PostgreSQL did not shut down within 30s; killed it")
	}
}

// BinDir finds the folder holding initdb and postgres.
func BinDir() (string, error) {
	var candidates []string
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		candidates = append(candidates, strings.TrimSpace(string(out)))
	}
	globbed, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.Reverse(globbed) // newest version first
	candidates = append(candidates, globbed...)
	candidates = append(candidates, "/usr/local/pgsql/bin", "/usr/bin")
	for _, d := range candidates {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", errors.New("pglocal: no PostgreSQL server binaries (initdb, postgres) found; install them with `apt-get install postgresql`, or set STYRMIN_DATABASE_URL to an existing server")
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// serverUser returns the credentials to run PostgreSQL with: nil (this process's own)
// unless this process is root, in which case the `postgres` user's.
func serverUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("pglocal: running as root needs the `postgres` user to run PostgreSQL (create it, e.g. by `apt-get install postgresql`): %w", err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("pglocal: postgres uid %q: %w", u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("pglocal: postgres gid %q: %w", u.Gid, err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func initdb(ctx context.Context, bin, dir string, owner *syscall.Credential) error {
	// Parents stay enterable for the postgres user; the data folder is private.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("pglocal: create %s: %w", filepath.Dir(dir), err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("pglocal: create %s: %w", dir, err)
	}
	if owner != nil {
		if err := os.Chown(dir, int(owner.Uid), int(owner.Gid)); err != nil {
			return fmt.Errorf("pglocal: give %s to postgres: %w", dir, err)
		}
		if err := checkReachable(dir, owner); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "initdb"),
		"--pgdata", dir, "--username", "postgres", "--auth", "trust",
		"--encoding", "UTF8", "--locale", "C", "--no-sync")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: owner}
	cmd.Dir = "/"
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pglocal: initdb %s: %w\n%s", dir, err, out)
	}
	return nil
}

// checkReachable fails when the postgres user cannot enter every parent folder of dir.
func checkReachable(dir string, owner *syscall.Credential) error {
	for p := filepath.Dir(dir); p != "/"; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("pglocal: %w", err)
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			continue
		}
		mode := st.Mode().Perm()
		switch {
		case sys.Uid == owner.Uid && mode&0o100 != 0:
		case sys.Gid == owner.Gid && mode&0o010 != 0:
		case mode&0o001 != 0:
		default:
			return fmt.Errorf("pglocal: the postgres user cannot enter %s (mode %o); allow it with `chmod o+x %s` or use another folder", p, mode, p)
		}
	}
	return nil
}

// removeStalePID deletes postmaster.pid left by a server that is no longer running.
func removeStalePID(dir string) error {
	pidFile := filepath.Join(dir, "postmaster.pid")
	data, err := os.ReadFile(pidFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("pglocal: %w", err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err == nil && processAlive(pid) {
		return fmt.Errorf("pglocal: PostgreSQL (pid %d) owns %s but does not answer on its socket; stop it or remove the folder", pid, dir)
	}
	if err := os.Remove(pidFile); err != nil {
		return fmt.Errorf("pglocal: remove stale %s: %w", pidFile, err)
	}
	return nil
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func (c *Cluster) start(bin string, owner *syscall.Credential, logFile string, fast bool) error {
	logOut, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("pglocal: open log: %w", err)
	}
	args := []string{
		"-D", c.dir, "-p", strconv.Itoa(Port), "-k", c.dir,
		"-c", "listen_addresses=", "-c", "max_connections=100",
	}
	if fast {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), args...)
	cmd.Dir = "/"
	cmd.Stdout, cmd.Stderr = logOut, logOut
	// Pdeathsig stops the server when the thread that started it exits, so the
	// starting goroutine keeps its thread locked for the process's lifetime.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: owner, Pdeathsig: syscall.SIGINT, Setpgid: true}
	started := make(chan error)
	c.exited = make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine's end only at process exit
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		c.exitErr = cmd.Wait()
		close(c.exited)
		logOut.Close()
	}()
	if err := <-started; err != nil {
		logOut.Close()
		return fmt.Errorf("pglocal: start postgres: %w", err)
	}
	c.cmd = cmd
	return nil
}

func (c *Cluster) waitReady(ctx context.Context, logFile string) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := c.ping(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-c.exited:
			return fmt.Errorf("pglocal: PostgreSQL exited while starting (%v); see %s", c.exitErr, logFile)
		case <-ctx.Done():
			return fmt.Errorf("pglocal: waiting for PostgreSQL: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pglocal: PostgreSQL did not accept connections within 60s (%v); see %s", err, logFile)
		}
	}
}

func (c *Cluster) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}
