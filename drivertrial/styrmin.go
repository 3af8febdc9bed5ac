package drivertrial

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/styrmin/styrmin/app"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/pglocal"
	"github.com/styrmin/styrmin/secrets"
)

// drain is how long the worker lets a running task go on once the trial ends.
const drain = 30 * time.Second

// local is the trial's own Styrmin: app.New on a private PostgreSQL in a
// temporary folder, working tasks, serving the action API on loopback for
// the actions to call back. close removes all of it.
type local struct {
	// stopPG stops PostgreSQL and removes its folder.
	stopPG func() error
	pool   *pgxpool.Pool
	app    *app.App
	server *http.Server
	// stop ends App.Run; done receives its result.
	stop context.CancelFunc
	done chan error
}

// startStyrmin starts the trial's Styrmin, in a new folder of tempDir, on the cluster of kubeconfig
// (kubeContext, when not empty), its driver actions run as local processes
// (actions.Process). On an error, what was started is stopped again.
func startStyrmin(ctx context.Context, tempDir, kubeconfig, kubeContext string, logger *slog.Logger) (s *local, err error) {
	s = &local{}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.close())
			s = nil
		}
	}()
	dbURL, stopPG, err := pglocal.StartTemporary(ctx, tempDir, "styrmin")
	if err != nil {
		return s, err
	}
	s.stopPG = stopPG
	if s.pool, err = db.Open(ctx, dbURL); err != nil {
		return s, err
	}
	if _, err := db.Migrate(ctx, s.pool); err != nil {
		return s, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return s, fmt.Errorf("drivertrial: listen for the action API: %w", err)
	}
	url := "http://" + ln.Addr().String()
	s.app, err = app.New(ctx, app.Config{
		Pool: s.pool, Logger: logger, SecretKey: secrets.NewKeyText(), Kubeconfig: kubeconfig, KubeContext: kubeContext,
		ActionsURL: url, Work: true, Drain: drain, Serve: true,
	})
	if err != nil {
		ln.Close()
		return s, err
	}
	if s.app.Cluster == nil {
		ln.Close()
		return s, errors.New("drivertrial: no cluster: give --kubeconfig or set KUBECONFIG")
	}
	s.server = &http.Server{Handler: s.app.Handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.server.Serve(ln) }() // Serve ends with http.ErrServerClosed at close
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop, s.done = stop, make(chan error, 1)
	go func() { s.done <- s.app.Run(runCtx) }()
	return s, nil
}

// close stops the worker (after drain at most), the server, the app and
// PostgreSQL, and removes the folder.
func (s *local) close() error {
	var errs []error
	if s.stop != nil {
		s.stop()
		errs = append(errs, <-s.done)
	}
	if s.server != nil {
		errs = append(errs, s.server.Close())
	}
	if s.app != nil {
		s.app.Close()
	}
	if s.pool != nil {
		s.pool.Close()
	}
	if s.stopPG != nil {
		errs = append(errs, s.stopPG())
	}
	return errors.Join(errs...)
}
