package release

import (
	"context"
	"time"

	"helm.sh/helm/v3/pkg/action"
	helmrelease "helm.sh/helm/v3/pkg/release"
)

// RollbackOptions says what Rollback does.
type RollbackOptions struct {
	// Namespace of the release.
	Namespace string
	// Name is the release name.
	Name string
	// Revision to roll back to; 0 means the one before the last.
	Revision int
	// Wait makes Rollback return only when Helm sees every resource ready.
	Wait bool
	// Timeout bounds the wait and each hook; DefaultTimeout when zero.
	Timeout time.Duration
	// Owner must own the release (see Owner).
	Owner Owner
	// Check, when set, judges everything the revision rolled back to holds
	// before Helm changes anything.
	Check Check
}

// Rollback makes a new revision with the chart, values and manifest of an
// earlier one, and returns it. Helm records it as pending-rollback before it
// changes anything. Helm's rollback takes no context: ctx is checked before it
// starts, then Timeout bounds it. Errors: EFORBIDDEN (IsForeign) when the
// release is not opts.Owner's, ENOTFOUND when the release does not exist,
// EUNAVAILABLE when the cluster does not answer.
func (c *Client) Rollback(ctx context.Context, opts RollbackOptions) (*Release, error) {
	cfg, err := c.config(ctx, opts.Namespace)
	if err != nil {
		return nil, fail("rollback", opts.Namespace, opts.Name, err)
	}
	last, err := lastOwned(cfg, "roll back", opts.Name, opts.Owner)
	if err != nil {
		return nil, fail("rollback", opts.Namespace, opts.Name, err)
	}
	err = checkFirst(cfg, opts.Check, func() (*helmrelease.Release, error) {
		target := opts.Revision
		if target == 0 {
			target = last.Version - 1
		}
		return cfg.Releases.Get(opts.Name, target)
	})
	if err != nil {
		return nil, fail("rollback", opts.Namespace, opts.Name, err)
	}
	rollback := action.NewRollback(cfg)
	rollback.Version, rollback.MaxHistory = opts.Revision, c.maxHistory
	rollback.Wait, rollback.Timeout = opts.Wait, orDefault(opts.Timeout, DefaultTimeout)
	if err := rollback.Run(opts.Name); err != nil {
		return nil, fail("rollback", opts.Namespace, opts.Name, err)
	}
	if last, err = cfg.Releases.Last(opts.Name); err != nil {
		return nil, fail("rollback", opts.Namespace, opts.Name, err)
	}
	return fromHelm(last), nil
}
