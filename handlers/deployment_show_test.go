package handlers

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	bundled "github.com/styrmin/styrmin/drivers/catalog"
)

// fakeVersions is a catalogue of one driver version whose content (digest
// and spec) a test may change, as an edit of the database by hand would.
type fakeVersions struct {
	DriverCatalog
	refs     []catalog.VersionRef
	byDigest map[string]*drivers.Driver
	gets     int
}

func (f *fakeVersions) VersionRefs(_ context.Context, name string) ([]catalog.VersionRef, error) {
	if len(f.refs) == 0 {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "The catalogue has no driver named %q.", name)
	}
	return f.refs, nil
}

func (f *fakeVersions) Get(_ context.Context, name, version string) (*catalog.Version, error) {
	f.gets++
	for _, r := range f.refs {
		if r.Version == version {
			return &catalog.Version{Driver: f.byDigest[r.Digest], Digest: r.Digest, HasIcon: true}, nil
		}
	}
	return nil, styrmin.Errorf(styrmin.ENOTFOUND, "The catalogue has no version %q of driver %q.", version, name)
}

// specOf is a decoded spec of the hello driver whose title is title.
func specOf(title string) *drivers.Driver {
	d := &drivers.Driver{Metadata: drivers.Metadata{Name: "hello"}}
	d.Spec.Version, d.Spec.Info.Title = "1.0.0", title
	return d
}

func TestDeployedDriverDecodesEachDigestOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dep := &deployment.Deployment{Driver: "hello", DriverVersion: "1.0.0"}
	first, second := specOf("Hello"), specOf("Hello again")
	cat := &fakeVersions{
		refs:     []catalog.VersionRef{{Version: "1.0.0", Digest: "sha256:a"}},
		byDigest: map[string]*drivers.Driver{"sha256:a": first, "sha256:b": second},
	}
	specs := newDriverSpecs(driverSpecCacheBytes)

	for range 3 {
		drv, hasIcon, err := deployedDriver(ctx, cat, specs, dep)
		require.NoError(t, err)
		require.Same(t, first, drv)
		require.True(t, hasIcon)
	}
	require.Equal(t, 1, cat.gets, "the spec of a digest is read and decoded once")

	cat.refs = []catalog.VersionRef{{Version: "1.0.0", Digest: "sha256:b"}}
	drv, _, err := deployedDriver(ctx, cat, specs, dep)
	require.NoError(t, err)
	require.Same(t, second, drv, "other content under the same version is other content")
	require.Equal(t, 2, cat.gets)

	cat.refs = []catalog.VersionRef{{Version: "2.0.0", Digest: "sha256:c"}}
	drv, _, err = deployedDriver(ctx, cat, specs, dep)
	require.NoError(t, err)
	require.Nil(t, drv, "a version the catalogue lost has no spec, even one kept")

	cat.refs = nil
	drv, _, err = deployedDriver(ctx, cat, specs, dep)
	require.NoError(t, err)
	require.Nil(t, drv, "nor has a driver the catalogue lost")
}

func TestDriverSpecsAreBoundedBySize(t *testing.T) {
	t.Parallel()
	// spec is a decoded spec whose one parameter has a default of n bytes,
	// held in an interface as decoded JSON holds it.
	spec := func(n int) driverSpec {
		d := specOf("Hello")
		d.Spec.Parameters = []drivers.Parameter{{Name: "motd", Type: drivers.TypeText, Default: strings.Repeat("x", n)}}
		return driverSpec{Driver: d}
	}
	small, large := textSize(reflect.ValueOf(spec(10))), textSize(reflect.ValueOf(spec(10_010)))
	require.Equal(t, 10_000, large-small, "a default's text counts")
	withMap := spec(10)
	withMap.Driver.Spec.Parameters[0].Default = map[string]any{"greeting": strings.Repeat("x", 10_000)}
	require.Greater(t, textSize(reflect.ValueOf(withMap)), large, "so does the text in a map")

	specs := newDriverSpecs(4 * large)
	for _, digest := range []string{"a", "b", "c", "d", "e"} {
		specs.add(digest, spec(10_010))
	}
	_, ok := specs.get("a")
	require.False(t, ok, "the least recently shown goes first")
	for _, digest := range []string{"b", "c", "d", "e"} {
		_, ok := specs.get(digest)
		require.True(t, ok, "%s is kept", digest)
	}
	require.LessOrEqual(t, specs.size, 4*large)
}

// TestDeploymentPageDecodesItsDriverVersionOnce: a deployment page reads its
// driver version's spec from the catalogue once, not per request, and keeps
// showing it after another version of the driver is imported.
func TestDeploymentPageDecodesItsDriverVersionOnce(t *testing.T) {
	t.Parallel()
	d := setupDeployments(t)
	d.install(t, pgInstall("orders"))
	cat := d.deps.Drivers.(*catalog.Catalog)
	counting := &countingCatalog{DriverCatalog: cat}
	d.deps.Drivers = counting
	d.e = New(d.deps)

	params := func() []string {
		rec := d.request(d.reader, http.MethodGet, "/deployments/orders", nil)
		require.Equal(t, http.StatusOK, rec.Code)
		doc := parse(t, rec)
		require.NotContains(t, rec.Body.String(), pgSecret)
		return attrs(doc.Find(`[data-testid="param-value"]`), "data-name")
	}
	want := params()
	require.Contains(t, want, "database", "the parameters come from the driver's spec")
	require.Equal(t, want, params())
	require.EqualValues(t, 1, counting.gets.Load(), "the spec was read and decoded once")

	bundle, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), "postgresql")
	require.NoError(t, err)
	bundle.Driver.Spec.Version = "1.0.1"
	_, err = cat.Import(context.Background(), bundle, "olga")
	require.NoError(t, err)
	require.Equal(t, want, params(), "another version changes nothing of this one")
	require.EqualValues(t, 1, counting.gets.Load())
}
