package executortest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/executor/executortest"
)

// reads returns a read that returns the next of states each call, then the last one.
func reads(states ...string) (read func(context.Context) (string, error), calls *int) {
	calls = new(int)
	return func(context.Context) (string, error) {
		i := min(*calls, len(states)-1)
		*calls++
		return states[i], nil
	}, calls
}

func ended(state string) bool { return state == "ended" }

func TestUntilReadsUntilTheTaskEnds(t *testing.T) {
	t.Parallel()
	read, calls := reads("queued", "running", "running", "ended", "never read")
	task, err := executortest.Until(context.Background(), read, ended)
	require.NoError(t, err)
	require.Equal(t, "ended", task)
	require.Equal(t, 4, *calls)
}

func TestUntilStopsAtAReadError(t *testing.T) {
	t.Parallel()
	broken := errors.New("database gone")
	_, err := executortest.Until(context.Background(), func(context.Context) (string, error) { return "", broken }, ended)
	require.ErrorIs(t, err, broken)
}

func TestUntilStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	read, _ := reads("running")
	task, err := executortest.Until(ctx, read, ended)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, "last read: running")
	require.Equal(t, "running", task)
}
