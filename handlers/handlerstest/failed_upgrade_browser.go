package handlerstest

import (
	"context"
	"testing"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor/executortest"
)

// WaitEnded waits for a task to end on the cluster.
func (env *ClusterEnv) WaitEnded(t *testing.T, name string, id int64) *deployment.Task {
	t.Helper()
	return executortest.Wait(t, func(ctx context.Context) (*deployment.Task, error) { return env.Service.Task(ctx, name, id) }, (*deployment.Task).Ended)
}
