package deployment

import (
	"context"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/secrets"
)

// ResealDeploymentSecretsOnly re-seals deployments.secrets and stops, as
// ResealSecrets interrupted after its first column would.
func ResealDeploymentSecretsOnly(ctx context.Context, q *db.Queries, box *secrets.Box) (int, error) {
	return resealColumn(ctx, box, deploymentSecretsColumn(q, box.Header()))
}
