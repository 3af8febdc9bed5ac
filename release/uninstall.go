package release

import (
	"context"
	"errors"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/storage/driver"
)

// UninstallOptions says what Uninstall does.
type UninstallOptions struct {
	// Namespace of the release.
	Namespace string
	// Name is the release name.
	Name string
	// Wait makes Uninstall return only when the release's resources are gone.
	Wait bool
	// Timeout bounds the wait and each hook; DefaultTimeout when zero.
	Timeout time.Duration
	// IgnoreNotFound makes uninstalling a missing release succeed (for a task
	// that is retried after its uninstall went through).
	IgnoreNotFound bool
	// Owner must own the release (see Owner).
	Owner Owner
}

// UninstallResult is what Uninstall did.
type UninstallResult struct {
	// Kept lists the resources Helm left in place because of their
	// helm.sh/resource-policy: keep annotation, as Helm words it; "" when none.
	Kept string
}

// Uninstall deletes a release's resources and its whole history (so the name
// can be installed again). Helm's uninstall takes no context: ctx is checked
// before it starts, then Timeout bounds it. Errors: EFORBIDDEN (IsForeign)
// when the release is not opts.Owner's (nothing is deleted), ENOTFOUND when
// the release does not exist (unless IgnoreNotFound), EUNAVAILABLE when the
// cluster does not answer.
func (c *Client) Uninstall(ctx context.Context, opts UninstallOptions) (UninstallResult, error) {
	cfg, err := c.config(ctx, opts.Namespace)
	if err != nil {
		return UninstallResult{}, fail("uninstall", opts.Namespace, opts.Name, err)
	}
	_, err = lastOwned(cfg, "uninstall", opts.Name, opts.Owner)
	if errors.Is(err, driver.ErrReleaseNotFound) && opts.IgnoreNotFound {
		return UninstallResult{}, nil
	}
	if err != nil {
		return UninstallResult{}, fail("uninstall", opts.Namespace, opts.Name, err)
	}
	uninstall := action.NewUninstall(cfg)
	uninstall.Wait, uninstall.Timeout = opts.Wait, orDefault(opts.Timeout, DefaultTimeout)
	uninstall.IgnoreNotFound = opts.IgnoreNotFound
	res, err := uninstall.Run(opts.Name)
	if err != nil {
		return UninstallResult{}, fail("uninstall", opts.Namespace, opts.Name, err)
	}
	if res == nil { // gone meanwhile, with IgnoreNotFound
		return UninstallResult{}, nil
	}
	return UninstallResult{Kept: res.Info}, nil
}
