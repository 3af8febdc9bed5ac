package deployment

import (
	"context"
	"github.com/styrmin/styrmin/release"
)

// PermissionCheck exposes permissionCheck to the attack tests.
func (s *Service) PermissionCheck(ctx context.Context, driver, version, namespace string) (release.Check, error) {
	return s.permissionCheck(ctx, driver, version, namespace)
}

// NamespaceKept exposes namespaceKept to its table test.
var NamespaceKept = namespaceKept
