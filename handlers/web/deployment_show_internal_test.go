package web

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/views"
)

// specOf is a decoded spec of the hello driver whose title is title.
func specOf(title string) *drivers.Driver {
	d := &drivers.Driver{Metadata: drivers.Metadata{Name: "hello"}}
	d.Spec.Version, d.Spec.Info.Title = "1.0.0", title
	return d
}

// TestManualActionFormsAreRenderedOncePerDigest: a deployment page renders
// its driver version's manual action forms once per content digest (the
// catalogue decodes each digest once: TestSpecDecodesEachDigestOnce); other
// content under the same version is rendered anew, and a driver version the
// catalogue lost has no forms.
func TestManualActionFormsAreRenderedOncePerDigest(t *testing.T) {
	t.Parallel()
	first, second := specOf("Hello"), specOf("Hello again")
	first.Spec.Actions = []drivers.Action{
		{Name: "vacuum", Title: "Vacuum", Description: "Reclaims **space**.", Hook: drivers.HookManual},
		{Name: "backup", Hook: drivers.HookPreUpgrade},
	}
	second.Spec.Actions = first.Spec.Actions
	cache := NewActionForms(ActionFormCacheBytes)

	var forms []*views.ManualAction
	for range 3 {
		manual, err := manualActionForms(cache, views.NewMarkdown(), catalog.Spec{Driver: first, Digest: "sha256:a"})
		require.NoError(t, err)
		require.Len(t, manual, 1, "the forms of the manual actions only")
		require.Contains(t, string(manual[0].Description), "<strong>space</strong>")
		forms = append(forms, &manual[0])
	}
	require.Same(t, forms[0], forms[2], "the actions' forms are rendered once")

	other, err := manualActionForms(cache, views.NewMarkdown(), catalog.Spec{Driver: second, Digest: "sha256:b"})
	require.NoError(t, err)
	require.NotSame(t, forms[0], &other[0], "other content under the same version is other content")

	lost, err := manualActionForms(cache, views.NewMarkdown(), catalog.Spec{})
	require.NoError(t, err)
	require.Empty(t, lost, "a driver version the catalogue lost has no forms")
}
