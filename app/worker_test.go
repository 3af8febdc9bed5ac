package app

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/executor"
)

// idleRunner is a runner for a worker that is given no task.
type idleRunner struct{}

func (idleRunner) Run(context.Context, *executor.Run) (any, error) { return nil, nil }

func (idleRunner) Recover(context.Context, *executor.Run) (bool, string, error) {
	return false, "", nil
}

// TestAServerStoppedWhileItsExecutorStartsStopsCleanly: serve answers
// before its executor has started, so a stop (SIGTERM) may come first.
func TestAServerStoppedWhileItsExecutorStartsStopsCleanly(t *testing.T) {
	t.Parallel()
	queue, err := executor.New(dbtest.New(t), executor.Options{Work: true})
	require.NoError(t, err)
	worker, err := executor.NewWorker(queue, map[string]executor.Runner{"idle": idleRunner{}}, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, runWorker(ctx, worker, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil))))
}
