package release

import "context"

// Reapply makes a new revision of a release with its last revision's own
// chart and values (they replace opts.Chart and opts.Values), as Upgrade
// does with the rest of opts: Helm's three-way merge sets every field the
// manifest sets back on the live objects (what was changed behind Helm's
// back) and creates the objects that were deleted. Errors are Upgrade's.
func (c *Client) Reapply(ctx context.Context, opts UpgradeOptions) (*Release, error) {
	cfg, err := c.config(ctx, opts.Namespace)
	if err != nil {
		return nil, fail("reapply", opts.Namespace, opts.Name, err)
	}
	last, err := lastOwned(cfg, "reapply", opts.Name, opts.Owner)
	if err != nil {
		return nil, fail("reapply", opts.Namespace, opts.Name, err)
	}
	opts.Chart, opts.Values = last.Chart, last.Config
	return c.Upgrade(ctx, opts)
}
