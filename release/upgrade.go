package release

import (
	"context"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	helmrelease "helm.sh/helm/v3/pkg/release"

	"github.com/styrmin/styrmin/chartrender"
)

// UpgradeOptions says what Upgrade does.
type UpgradeOptions struct {
	// Namespace of the release.
	Namespace string
	// Name is the release name.
	Name string
	// Chart is the chart to upgrade to: the bundle's (see catalog.Catalog.Bundle).
	Chart *chart.Chart
	// Values replace the previous revision's values entirely; the chart's
	// defaults fill the rest.
	Values map[string]any
	// Wait makes Upgrade return only when Helm sees every resource ready.
	Wait bool
	// Timeout bounds the wait and each hook; DefaultTimeout when zero.
	Timeout time.Duration
	// DryRun renders the upgrade against the cluster and returns the would-be
	// revision without storing or applying anything; compare its Manifest with
	// the current one with DiffManifests.
	DryRun bool
	// Description is recorded in the history instead of "Upgrade complete".
	Description string
	// Owner must own the release (see Owner); the new revision carries its marks.
	Owner Owner
	// Check, when set, judges everything the upgrade would create (a dry
	// run) before Helm changes anything, and the resources again as Helm
	// is about to apply them.
	Check Check
	// Hold are workloads kept at 0 replicas whatever the chart renders
	// (stopped components: see HeldAnnotation).
	Hold []Held
}

// Upgrade makes a new revision of a release from a chart and values. Helm
// records it as pending-upgrade before it changes anything, and marks it failed
// when an error or the end of ctx stops it (then Helm may still finish in the
// background). The chart is rendered offline within chartrender's budget
// before Helm renders it in this process: a chart whose templates would
// exhaust the process's memory or time without the cluster's help is refused
// before Helm starts. Errors: EINVALID when the chart does not render or
// passes the budget, EFORBIDDEN (IsForeign) when the release is not
// opts.Owner's, ENOTFOUND when the release does not exist, ECONFLICT
// when another operation is pending (see RecoverPending), EUNAVAILABLE when the
// cluster does not answer.
func (c *Client) Upgrade(ctx context.Context, opts UpgradeOptions) (*Release, error) {
	cfg, err := c.config(ctx, opts.Namespace)
	if err != nil {
		return nil, fail("upgrade", opts.Namespace, opts.Name, err)
	}
	if _, err := lastOwned(cfg, "upgrade", opts.Name, opts.Owner); err != nil {
		return nil, fail("upgrade", opts.Namespace, opts.Name, err)
	}
	newUpgrade := func(dryRun bool) *action.Upgrade {
		upgrade := action.NewUpgrade(cfg)
		upgrade.Namespace = opts.Namespace
		upgrade.Wait, upgrade.Timeout = opts.Wait, orDefault(opts.Timeout, DefaultTimeout)
		upgrade.Description = opts.Description
		upgrade.ResetValues, upgrade.Labels = true, opts.Owner.Labels()
		upgrade.MaxHistory = c.maxHistory
		if dryRun {
			upgrade.DryRunOption = dryRunServer
		}
		var post postRenderers
		if len(opts.Hold) > 0 {
			post = append(post, holdStopped(opts.Hold))
		}
		if opts.Check != nil {
			post = append(post, checkRendered(opts.Check))
		}
		if len(post) > 0 {
			upgrade.PostRenderer = post
		}
		return upgrade
	}
	if err := renderWithinBudget(ctx, chartrender.Request{Chart: opts.Chart, Values: opts.Values, Namespace: opts.Namespace, Name: opts.Name, Upgrade: true}); err != nil {
		return nil, fail("upgrade", opts.Namespace, opts.Name, err)
	}
	err = checkFirst(cfg, opts.Check, func() (*helmrelease.Release, error) {
		return newUpgrade(true).RunWithContext(ctx, opts.Name, opts.Chart, opts.Values)
	})
	if err != nil {
		return nil, fail("upgrade", opts.Namespace, opts.Name, err)
	}
	rel, err := newUpgrade(opts.DryRun).RunWithContext(ctx, opts.Name, opts.Chart, opts.Values)
	if err != nil {
		return nil, fail("upgrade", opts.Namespace, opts.Name, err)
	}
	return fromHelm(rel), nil
}
