package api_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/api"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// reviewingDeployments reviews every upgrade with a sealed plan and queues
// every operation, recording both; any other call panics (its embedded
// Deployments is nil).
type reviewingDeployments struct {
	api.Deployments
	reviewed []*deployment.Upgrade
	queued   []deployment.Operation
}

func (r *reviewingDeployments) Review(ctx context.Context, op *deployment.Upgrade) (*deployment.Review, error) {
	r.reviewed = append(r.reviewed, op)
	return &deployment.Review{Deployment: &deployment.Deployment{Name: op.Name}, Token: "sealed-plan"}, nil
}

func (r *reviewingDeployments) Queue(ctx context.Context, op deployment.Operation) (*deployment.Queued, error) {
	r.queued = append(r.queued, op)
	return &deployment.Queued{TaskID: 7, Deployment: "site"}, nil
}

func (r *reviewingDeployments) Task(ctx context.Context, name string, id int64) (*deployment.Task, error) {
	return &deployment.Task{ID: id, Kind: deployment.KindUpgrade, Inputs: &deployment.UpgradeInputs{}}, nil
}

// TestAPIUpgradePlansOnceAndQueuesThatPlan: an API upgrade is one review of
// the request's JSON values (no form text, no other read of the upgrade),
// and what it queues is the plan that review sealed, as its caller.
func TestAPIUpgradePlansOnceAndQueuesThatPlan(t *testing.T) {
	t.Parallel()
	svc := &reviewingDeployments{}
	ctx := httpx.WithAPICredential(context.Background(), &auth.Credential{User: auth.User{Username: "olga"}})
	version := "7.4.1"
	_, err := (&api.Server{Deployments: svc}).UpgradeDeployment(ctx, oapi.UpgradeDeploymentRequestObject{Name: "site",
		Body: &oapi.UpgradeRequest{AppVersion: &version, Parameters: &oapi.ParameterValues{"replicas": 3.0}}})
	require.NoError(t, err)

	require.Equal(t, []*deployment.Upgrade{{Name: "site", AppVersion: "7.4.1",
		Parameters: deployment.JSONInput{"replicas": 3.0}, Prompts: deployment.JSONPrompts(nil), By: "olga"}}, svc.reviewed)
	require.Equal(t, []deployment.Operation{deployment.ConfirmUpgrade{Token: "sealed-plan", By: "olga"}}, svc.queued)
}
