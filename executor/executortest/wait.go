// Package executortest helps tests wait for tasks, whichever layer they read
// them through (the database row, the service's view, the REST API).
package executortest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/styrmin/styrmin/db"
)

// Timeout bounds Wait: an action on the local cluster can take minutes.
const Timeout = 5 * time.Minute

// First and longest pause between two reads of Until.
const (
	firstPause   = 10 * time.Millisecond
	longestPause = 250 * time.Millisecond
)

// Until reads a task, pausing longer each time up to a quarter second,
// until ended reports that the task read has ended, and returns it. It stops
// at the first error of read, and when ctx ends (returning the task last
// read with ctx's error).
func Until[T any](ctx context.Context, read func(context.Context) (T, error), ended func(T) bool) (T, error) {
	pause := firstPause
	for {
		task, err := read(ctx)
		if err != nil || ended(task) {
			return task, err
		}
		select {
		case <-ctx.Done():
			return task, fmt.Errorf("the task has not ended: %w (last read: %+v)", ctx.Err(), task)
		case <-time.After(pause):
		}
		pause = min(2*pause, longestPause)
	}
}

// Wait is Until for a test: it fails t when the task cannot be read or has
// not ended within Timeout.
func Wait[T any](t testing.TB, read func(context.Context) (T, error), ended func(T) bool) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	task, err := Until(ctx, read, ended)
	if err != nil {
		t.Fatalf("waiting for a task to end: %v", err)
	}
	return task
}

// RowEnded reports whether a task's row records its end.
func RowEnded(task db.Task) bool { return task.EndedAt != nil }

// WaitRow waits for the task with id to end and returns its row.
func WaitRow(t testing.TB, q *db.Queries, id int64) db.Task {
	t.Helper()
	return Wait(t, func(ctx context.Context) (db.Task, error) { return q.GetTask(ctx, id) }, RowEnded)
}
