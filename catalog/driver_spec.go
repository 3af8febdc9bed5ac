package catalog

import (
	"context"
	"reflect"
	"slices"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/lru"
)

// SpecCacheBytes bounds the decoded specs a Catalog keeps.
const SpecCacheBytes = 16 << 20

// Spec is a driver version's decoded spec, whether it has an icon, and its
// content digest (which names it for good).
type Spec struct {
	Driver  *drivers.Driver
	HasIcon bool
	Digest  string
}

// specCache keeps the decoded specs of the driver versions read most
// recently, keyed by content digest. It is safe for concurrent use; its
// specs are shared by every caller, so they are read-only.
type specCache = lru.Cache[string, Spec]

// newSpecCache returns an empty cache of at most max bytes of decoded specs.
func newSpecCache(max int) *specCache {
	return lru.New(max, func(_ string, s Spec) int { return lru.TextSize(reflect.ValueOf(s)) })
}

// SpecCacheStats returns the lookups of the decoded specs kept in memory.
func (c *Catalog) SpecCacheStats() lru.Stats { return c.specs.Stats() }

// Spec returns the decoded spec of one version of the named driver. A
// driver version never changes, so its spec is decoded once per content
// digest and kept (up to SpecCacheBytes): the digest comes from the version
// list (VersionRefs), and the stored spec is read only on a miss. The
// returned Driver is shared by every caller: read it, never modify it. A
// missing driver or version is an ENOTFOUND error (Absent tells it apart).
func (c *Catalog) Spec(ctx context.Context, name, version string) (Spec, error) {
	refs, err := c.VersionRefs(ctx, name)
	if err != nil {
		return Spec{}, err
	}
	i := slices.IndexFunc(refs, func(r VersionRef) bool { return r.Version == version })
	if i < 0 {
		return Spec{}, styrmin.Errorf(styrmin.ENOTFOUND, "The catalogue has no version %q of driver %q.", version, name)
	}
	if s, ok := c.specs.Get(refs[i].Digest); ok {
		return s, nil
	}
	v, err := c.Get(ctx, name, version)
	if err != nil {
		return Spec{}, err
	}
	s := Spec{Driver: v.Driver, HasIcon: v.HasIcon, Digest: v.Digest}
	c.specs.Add(v.Digest, s)
	return s, nil
}

// Absent turns the ENOTFOUND error of Spec into a zero Spec, for the callers
// that show a deployment whose driver version the catalogue no longer holds.
func Absent(s Spec, err error) (Spec, error) {
	if styrmin.ErrorCode(err) == styrmin.ENOTFOUND {
		return Spec{}, nil
	}
	return s, err
}
