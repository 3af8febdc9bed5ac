package release

import (
	"context"

	"helm.sh/helm/v3/pkg/releaseutil"
	"helm.sh/helm/v3/pkg/storage/driver"
)

// History returns every revision of a release, oldest first. Errors: ENOTFOUND
// when the release does not exist, EUNAVAILABLE when the cluster does not answer.
func (c *Client) History(ctx context.Context, namespace, name string) ([]Revision, error) {
	cfg, err := c.config(ctx, namespace)
	if err != nil {
		return nil, fail("history", namespace, name, err)
	}
	rels, err := cfg.Releases.History(name)
	if err == nil && len(rels) == 0 {
		err = driver.ErrReleaseNotFound
	}
	if err != nil {
		return nil, fail("history", namespace, name, err)
	}
	releaseutil.SortByRevision(rels)
	revisions := make([]Revision, len(rels))
	for i, r := range rels {
		revisions[i] = revisionOf(r)
	}
	return revisions, nil
}

// Status returns the last revision of a release with its manifest and notes.
// Errors: ENOTFOUND when the release does not exist, EUNAVAILABLE when the
// cluster does not answer.
func (c *Client) Status(ctx context.Context, namespace, name string) (*Release, error) {
	cfg, err := c.config(ctx, namespace)
	if err != nil {
		return nil, fail("status", namespace, name, err)
	}
	rel, err := cfg.Releases.Last(name)
	if err != nil {
		return nil, fail("status", namespace, name, err)
	}
	return fromHelm(rel), nil
}

// GetValues returns the values given to revision (0: the last one), without
// the chart's defaults. Errors: ENOTFOUND when the release or revision does not
// exist, EUNAVAILABLE when the cluster does not answer.
func (c *Client) GetValues(ctx context.Context, namespace, name string, revision int) (map[string]any, error) {
	cfg, err := c.config(ctx, namespace)
	if err != nil {
		return nil, fail("get values", namespace, name, err)
	}
	rel, err := cfg.Releases.Last(name)
	if err == nil && revision > 0 {
		rel, err = cfg.Releases.Get(name, revision)
	}
	if err != nil {
		return nil, fail("get values", namespace, name, err)
	}
	if rel.Config == nil {
		return map[string]any{}, nil
	}
	return rel.Config, nil
}
