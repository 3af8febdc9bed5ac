package deployment

import (
	"cmp"
	"context"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/permissions"
	"github.com/styrmin/styrmin/release"
)

// PermissionCheck is the release check of a Helm operation with a driver
// version in namespace: everything it would create that is cluster-scoped,
// of unknown scope or an RBAC grant must be approved for that driver
// version (catalog.Catalog.Permissions), or it is refused with EFORBIDDEN
// and a message that names each item. A chart that needs none of these
// needs no approval.
func (s *Service) PermissionCheck(ctx context.Context, driver, version, namespace string) (release.Check, error) {
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
		if err := permissions.Check(driver, version, need, approved, p.Needs); err != nil {
			return &styrmin.Error{Code: styrmin.EFORBIDDEN, Message: err.Error(), Err: err}
		}
		return nil
	}, nil
}

// checkPermissions renders, without a cluster, the chart of driver version
// d with values as release name in namespace, and refuses (as the install
// task would) what it creates that no admin approved for that version: an
// EFORBIDDEN error wrapping a *permissions.RefusedError. It tells the user
// before anything is queued; the task checks again on what Helm is about to
// apply. A chart that does not render here is left for the task to report.
func (s *Service) checkPermissions(ctx context.Context, d *drivers.Driver, values Values, appVersion, namespace, name string) error {
	b, err := s.catalog.Bundle(ctx, d.Metadata.Name, d.Spec.Version)
	if err != nil {
		return err
	}
	check, err := s.PermissionCheck(ctx, d.Metadata.Name, d.Spec.Version, namespace)
	if err != nil {
		return err
	}
	rendered, err := release.Values(ctx, d, values.All(), cmp.Or(appVersion, b.Chart.Metadata.AppVersion), namespace, name)
	if err != nil {
		return nil //nolint:nilerr // the task reports what does not render
	}
	manifest, err := release.Render(ctx, b.Chart, rendered, namespace, name)
	if err != nil {
		return nil //nolint:nilerr // the task reports what does not render
	}
	return check(manifest)
}
