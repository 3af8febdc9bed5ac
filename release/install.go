package release

import (
	"context"
	"errors"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	helmrelease "helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/styrmin/styrmin/chartrender"
)

// DefaultTimeout bounds Helm's wait and each hook when an operation gives no timeout.
const DefaultTimeout = 5 * time.Minute

// dryRunServer makes Helm render with the cluster at hand (the chart's
// `lookup` calls see real objects) and change nothing.
const dryRunServer = "server"

// InstallOptions says what Install does.
type InstallOptions struct {
	// Namespace of the release; it must exist (see kube.Client.EnsureNamespace).
	Namespace string
	// Name is the release name.
	Name string
	// Chart is the chart to install: the bundle's (see catalog.Catalog.Bundle).
	Chart *chart.Chart
	// Values are the release's values; the chart's defaults fill the rest.
	Values map[string]any
	// Wait makes Install return only when Helm sees every resource ready.
	Wait bool
	// Timeout bounds the wait and each hook; DefaultTimeout when zero.
	Timeout time.Duration
	// DryRun renders the chart against the cluster and returns the release
	// without storing or applying anything (for a review page).
	DryRun bool
	// Description is recorded in the history instead of "Install complete".
	Description string
	// Owner marks the release (see Owner); a release of that name must be
	// missing, or be Owner's and failed or uninstalled (then it is replaced).
	Owner Owner
	// Check, when set, judges everything the install would create (a dry
	// run) before Helm creates anything, and the resources again as Helm
	// is about to apply them.
	Check Check
}

// Install installs a chart as revision 1 of a release, marked with
// opts.Owner. Helm records the revision as pending-install before it creates
// anything; a release of opts.Owner whose last revision failed or was
// uninstalled is replaced. The CRDs of the chart's crds/ folder are created
// first (not on a dry run). The chart is rendered offline within
// chartrender's budget before Helm renders it in this process: a chart whose templates
// would exhaust the process's memory or time without the cluster's help is
// refused before Helm starts. When ctx ends, Install returns ctx's error
// while Helm finishes in the background. Errors: EFORBIDDEN (IsForeign) when a
// release of that name exists that is not opts.Owner's, EINVALID when the
// chart does not render or passes the budget, ECONFLICT when
// opts.Owner's release exists and is not failed, EUNAVAILABLE when the
// cluster does not answer.
func (c *Client) Install(ctx context.Context, opts InstallOptions) (*Release, error) {
	cfg, err := c.config(ctx, opts.Namespace)
	if err != nil {
		return nil, fail("install", opts.Namespace, opts.Name, err)
	}
	replace, err := replaceable(cfg, opts.Name, opts.Owner)
	if err != nil {
		return nil, fail("install", opts.Namespace, opts.Name, err)
	}
	newInstall := func(dryRun bool) *action.Install {
		install := action.NewInstall(cfg)
		install.Namespace, install.ReleaseName = opts.Namespace, opts.Name
		install.Wait, install.Timeout = opts.Wait, orDefault(opts.Timeout, DefaultTimeout)
		install.Description = opts.Description
		install.Replace, install.Labels = replace, opts.Owner.Labels()
		if dryRun {
			install.DryRunOption = dryRunServer
		}
		if opts.Check != nil {
			install.PostRenderer = checkRendered(opts.Check)
		}
		return install
	}
	if err := renderWithinBudget(ctx, chartrender.Request{Chart: opts.Chart, Values: opts.Values, Namespace: opts.Namespace, Name: opts.Name}); err != nil {
		return nil, fail("install", opts.Namespace, opts.Name, err)
	}
	err = checkFirst(cfg, opts.Check, func() (*helmrelease.Release, error) {
		return newInstall(true).RunWithContext(ctx, opts.Chart, opts.Values)
	})
	if err != nil {
		return nil, fail("install", opts.Namespace, opts.Name, err)
	}
	rel, err := newInstall(opts.DryRun).RunWithContext(ctx, opts.Chart, opts.Values)
	if err != nil {
		return nil, fail("install", opts.Namespace, opts.Name, err)
	}
	return fromHelm(rel), nil
}

// replaceable reports whether a release of that name exists that owner may
// replace: Helm replaces it only when its last revision failed or was
// uninstalled, and refuses the name otherwise. A release that is not owner's
// is refused here, whatever its state.
func replaceable(cfg *action.Configuration, name string, owner Owner) (bool, error) {
	_, err := lastOwned(cfg, "install", name, owner)
	if errors.Is(err, driver.ErrReleaseNotFound) {
		return false, nil
	}
	return err == nil, err
}
