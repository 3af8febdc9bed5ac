package web

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/views"
)

// fakeVersions is a catalogue of one driver version whose content (digest
// and spec) a test may change, as an edit of the database by hand would.
type fakeVersions struct {
	DriverCatalog
	refs     []catalog.VersionRef
	byDigest map[string]*drivers.Driver
}

func (f *fakeVersions) Spec(_ context.Context, name, version string) (catalog.Spec, error) {
	for _, r := range f.refs {
		if r.Version == version {
			return catalog.Spec{Driver: f.byDigest[r.Digest], Digest: r.Digest, HasIcon: true}, nil
		}
	}
	return catalog.Spec{}, styrmin.Errorf(styrmin.ENOTFOUND, "The catalogue has no version %q of driver %q.", version, name)
}

// specOf is a decoded spec of the hello driver whose title is title.
func specOf(title string) *drivers.Driver {
	d := &drivers.Driver{Metadata: drivers.Metadata{Name: "hello"}}
	d.Spec.Version, d.Spec.Info.Title = "1.0.0", title
	return d
}

// TestDeployedDriverRendersEachDigestsFormsOnce: a deployment page renders
// its driver version's manual action forms once per content digest, and a
// version the catalogue lost has no spec (catalog.Spec decodes each digest
// once: TestSpecDecodesEachDigestOnce).
func TestDeployedDriverRendersEachDigestsFormsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dep := &deployment.Deployment{Driver: "hello", DriverVersion: "1.0.0"}
	first, second := specOf("Hello"), specOf("Hello again")
	cat := &fakeVersions{
		refs:     []catalog.VersionRef{{Version: "1.0.0", Digest: "sha256:a"}},
		byDigest: map[string]*drivers.Driver{"sha256:a": first, "sha256:b": second},
	}
	cache := NewActionForms(ActionFormCacheBytes)

	first.Spec.Actions = []drivers.Action{
		{Name: "vacuum", Title: "Vacuum", Description: "Reclaims **space**.", Hook: drivers.HookManual},
		{Name: "backup", Hook: drivers.HookPreUpgrade},
	}
	var forms []*views.ManualAction
	for range 3 {
		spec, manual, err := deployedDriver(ctx, cat, cache, views.NewMarkdown(), dep)
		require.NoError(t, err)
		require.Same(t, first, spec.Driver)
		require.True(t, spec.HasIcon)
		require.Len(t, manual, 1, "the forms of the manual actions only")
		require.Contains(t, string(manual[0].Description), "<strong>space</strong>")
		forms = append(forms, &manual[0])
	}
	require.Same(t, forms[0], forms[2], "the actions' forms are rendered once")

	cat.refs = []catalog.VersionRef{{Version: "1.0.0", Digest: "sha256:b"}}
	spec, _, err := deployedDriver(ctx, cat, cache, views.NewMarkdown(), dep)
	require.NoError(t, err)
	require.Same(t, second, spec.Driver, "other content under the same version is other content")

	cat.refs = []catalog.VersionRef{{Version: "2.0.0", Digest: "sha256:c"}}
	spec, _, err = deployedDriver(ctx, cat, cache, views.NewMarkdown(), dep)
	require.NoError(t, err)
	require.Nil(t, spec.Driver, "a version the catalogue lost has no spec, even one kept")

	cat.refs = nil
	spec, _, err = deployedDriver(ctx, cat, cache, views.NewMarkdown(), dep)
	require.NoError(t, err)
	require.Nil(t, spec.Driver, "nor has a driver the catalogue lost")
}
