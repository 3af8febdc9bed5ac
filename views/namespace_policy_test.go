package views

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNamespacePolicyPageLetsOnlyAdminsChangeThePolicy(t *testing.T) {
	t.Parallel()
	props := NamespacePolicyProps{Allowed: "team-*\nlab", CreateNamespaces: true, Reserved: []string{"kube-*", "default", "styrmin"}}
	for _, tt := range []struct {
		role  string
		admin bool
	}{{"read-only", false}, {"operator", false}, {"admin", true}} {
		props.Page = Page{Title: "Namespaces", User: &User{Username: "u", Role: tt.role}, CSRFToken: "tok"}
		doc := renderDoc(t, NamespacePolicyPage(props))

		allowed := doc.Find(`[data-testid="allowed"]`)
		require.Equal(t, "team-*\nlab", allowed.Text(), tt.role)
		require.Equal(t, !tt.admin, allowed.Is("[disabled]"), tt.role)
		require.Equal(t, !tt.admin, doc.Find(`[data-testid="create-namespaces"]`).Is("[disabled]"), tt.role)
		require.Equal(t, tt.admin, doc.Find(`[data-testid="save-policy"]`).Length() == 1, tt.role)
		require.Contains(t, doc.Find(`[data-testid="namespace-policy-form"] .hint`).Text(), "Reserved namespaces (kube-*, default, styrmin)")
	}
}
