package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/app"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/secrets"
)

// TestNewBuildsWhatTheProcessDoes: a process that neither serves nor works
// only queues (no worker, no web app); one that works has a worker that Run
// runs until its context ends; one that serves has the web app.
func TestNewBuildsWhatTheProcessDoes(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	cfg := app.Config{Pool: pool, SecretKey: secrets.NewKeyText(), NoCluster: true, Drain: time.Second}
	ctx := context.Background()

	queueOnly, err := app.New(ctx, cfg)
	require.NoError(t, err)
	require.NotNil(t, queueOnly.Deployments)
	require.Nil(t, queueOnly.Worker)
	require.Nil(t, queueOnly.Handler)
	require.Nil(t, queueOnly.Cluster, "NoCluster deploys nowhere, whatever KUBECONFIG says")

	working := cfg
	working.Work, working.Serve = true, true
	a, err := app.New(ctx, working)
	require.NoError(t, err)
	require.NotNil(t, a.Worker)
	require.NotNil(t, a.Handler)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(runCtx) }()
	<-a.Notifications.Ready()
	cancel()
	require.NoError(t, <-done)
}

func TestNewRefusesAnotherSecretKeyThanTheDatabases(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	cfg := app.Config{Pool: pool, SecretKey: secrets.NewKeyText(), NoCluster: true}
	_, err := app.New(context.Background(), cfg)
	require.NoError(t, err)
	cfg.SecretKey = secrets.NewKeyText()
	_, err = app.New(context.Background(), cfg)
	require.ErrorContains(t, err, "is the key this database's secrets were encrypted with")
}
