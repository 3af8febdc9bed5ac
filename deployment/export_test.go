package deployment

import (
	"context"
	"github.com/styrmin/styrmin/release"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/secrets"
)

// ResealDeploymentSecretsOnly re-seals deployments.secrets and stops, as
// ResealSecrets interrupted after its first column would.
func ResealDeploymentSecretsOnly(ctx context.Context, q *db.Queries, box *secrets.Box) (int, error) {
	return resealColumn(ctx, box, deploymentSecretsColumn(q, box.Header()))
}

// PermissionCheck exposes permissionCheck to the attack tests.
func (s *Service) PermissionCheck(ctx context.Context, driver, version, namespace string) (release.Check, error) {
	return s.permissionCheck(ctx, driver, version, namespace)
}

// NamespaceKept exposes namespaceKept to its table test.
var NamespaceKept = namespaceKept
