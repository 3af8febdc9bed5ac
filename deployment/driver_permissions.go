package deployment

import (
	"cmp"
	"context"

	"helm.sh/helm/v3/pkg/chart"

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

// renderOffline renders, without a cluster, the chart ch of driver version
// d with values as release name in namespace (as an upgrade renders it when
// upgrade is set), within chartrender's budget. It returns the manifest, or
// in renderErr why the chart did not render; err is for what stopped the
// render itself (the context).
func (s *Service) renderOffline(ctx context.Context, d *drivers.Driver, ch *chart.Chart, values Values, appVersion, namespace, name string, upgrade bool) (manifest string, renderErr, err error) {
	rendered, err := release.Values(ctx, d, values.All(), cmp.Or(appVersion, ch.Metadata.AppVersion), namespace, name)
	if err == nil {
		render := release.Render
		if upgrade {
			render = release.RenderUpgrade
		}
		manifest, err = render(ctx, ch, rendered, namespace, name)
	}
	if ctx.Err() != nil {
		return "", nil, ctx.Err()
	}
	return manifest, err, nil
}

// checkPermissions refuses (as the install task would) what manifest, the
// chart of driver version d rendered offline for namespace, creates that no
// admin approved for that version: an EFORBIDDEN error wrapping a
// *permissions.RefusedError. It tells the user before anything is queued;
// the task checks again on what Helm is about to apply. A chart that does
// not render offline is left for the task to report.
func (s *Service) checkPermissions(ctx context.Context, d *drivers.Driver, namespace, manifest string) error {
	check, err := s.PermissionCheck(ctx, d.Metadata.Name, d.Spec.Version, namespace)
	if err != nil {
		return err
	}
	return check(manifest)
}
