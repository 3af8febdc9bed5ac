package httpx

import (
	"context"
	"reflect"
	"slices"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
)

// DriverSpecCacheBytes bounds the decoded specs a DriverSpecs keeps.
const DriverSpecCacheBytes = 16 << 20

// DriverSpec is a deployed driver version: its decoded spec, whether it has
// an icon, and its content digest (which names it for good).
type DriverSpec struct {
	Driver  *drivers.Driver
	HasIcon bool
	Digest  string
}

// DriverSpecs keeps the decoded specs of the driver versions that deployment
// pages and the API showed most recently, keyed by content digest: a driver
// version never changes, so its spec is decoded once, not on every request.
// The specs are shared: read them, never modify them.
type DriverSpecs = LRU[string, DriverSpec]

// NewDriverSpecs returns an empty cache of at most max bytes of decoded specs.
func NewDriverSpecs(max int) *DriverSpecs {
	return NewLRU(max, func(_ string, s DriverSpec) int { return TextSize(reflect.ValueOf(s)) })
}

// VersionSource is what DeployedDriver reads from the driver catalogue
// (catalog.Catalog).
type VersionSource interface {
	VersionRefs(ctx context.Context, name string) ([]catalog.VersionRef, error)
	Get(ctx context.Context, name, version string) (*catalog.Version, error)
}

// DeployedDriver returns the deployment's driver version, or a zero
// DriverSpec when the catalogue no longer has it. The version's digest comes
// from the catalogue's version list (kept in memory while notifications are
// received), and a digest's spec is decoded once and kept in specs.
func DeployedDriver(ctx context.Context, cat VersionSource, specs *DriverSpecs, d *deployment.Deployment) (DriverSpec, error) {
	refs, err := cat.VersionRefs(ctx, d.Driver)
	switch {
	case styrmin.ErrorCode(err) == styrmin.ENOTFOUND:
		return DriverSpec{}, nil
	case err != nil:
		return DriverSpec{}, err
	}
	i := slices.IndexFunc(refs, func(r catalog.VersionRef) bool { return r.Version == d.DriverVersion })
	if i < 0 {
		return DriverSpec{}, nil
	}
	if s, ok := specs.Get(refs[i].Digest); ok {
		return s, nil
	}
	v, err := cat.Get(ctx, d.Driver, d.DriverVersion)
	switch {
	case styrmin.ErrorCode(err) == styrmin.ENOTFOUND:
		return DriverSpec{}, nil
	case err != nil:
		return DriverSpec{}, err
	}
	s := DriverSpec{Driver: v.Driver, HasIcon: v.HasIcon, Digest: v.Digest}
	specs.Add(v.Digest, s)
	return s, nil
}

// TextSize is the bytes of text in v (strings, in structs, slices, maps and
// interfaces at any depth) plus a word per value, an estimate of the memory
// a presentation or a decoded spec holds.
func TextSize(v reflect.Value) int {
	const word = 8
	switch v.Kind() {
	case reflect.String:
		return v.Len() + 2*word
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			n += TextSize(v.Field(i))
		}
		return n
	case reflect.Slice:
		n := 3 * word
		for i := range v.Len() {
			n += TextSize(v.Index(i))
		}
		return n
	case reflect.Map:
		n := 6 * word
		for iter := v.MapRange(); iter.Next(); {
			n += TextSize(iter.Key()) + TextSize(iter.Value())
		}
		return n
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return word
		}
		return word + TextSize(v.Elem())
	default:
		return word
	}
}
