package deployment

import (
	"context"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/permissions"
	"github.com/styrmin/styrmin/release"
)

// permissionCheck is the release check of a Helm operation with a driver
// version in namespace: everything it would create that is cluster-scoped,
// of unknown scope or an RBAC grant must be approved for that driver
// version (catalog.Catalog.Permissions), or it is refused with EFORBIDDEN
// and a message that names each item. A chart that needs none of these
// needs no approval.
func (s *Service) permissionCheck(ctx context.Context, driver, version, namespace string) (release.Check, error) {
	p, err := s.catalog.Permissions(ctx, driver, version)
	if err != nil {
		return nil, err
	}
	approved := p.Approved()
	return func(manifest string) error {
		need, err := permissions.Parse(manifest, namespace)
		if err != nil {
			return err
		}
		if err := permissions.Check(driver, version, need, approved); err != nil {
			return &styrmin.Error{Code: styrmin.EFORBIDDEN, Message: err.Error(), Err: err}
		}
		return nil
	}, nil
}
