package catalog_test

import (
	"context"
	"fmt"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers/bundled"
	"github.com/styrmin/styrmin/permissions"
)

// bindingTemplate is a template that binds the release's ServiceAccount to
// cluster-admin.
const bindingTemplate = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ .Release.Name }}-admin
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: ServiceAccount, name: default, namespace: {{ .Release.Namespace }}}
`

// bindingBundle is tinyBundle whose chart holds bindingTemplate.
func bindingBundle(version string) fstest.MapFS {
	b := tinyBundle(version, "# Tiny\n")
	b["tiny/chart/templates/binding.yaml"] = &fstest.MapFile{Data: []byte(bindingTemplate)}
	return b
}

func TestImportRecordsWhatTheChartNeedsAndAnAdminApprovesItPerVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	_, err := c.ImportFS(ctx, bindingBundle("1.0.0"), "tiny", "alice")
	require.NoError(t, err)
	_, err = c.ImportFS(ctx, tinyBundle("0.9.0", "# Tiny\n"), "tiny", "alice")
	require.NoError(t, err)

	plain, err := c.Permissions(ctx, "tiny", "0.9.0")
	require.NoError(t, err)
	require.True(t, plain.Needs.Empty(), "a chart of namespaced objects needs nothing: %v", plain.Needs.Lines())
	require.True(t, plain.Pending().Empty())

	p, err := c.Permissions(ctx, "tiny", "1.0.0")
	require.NoError(t, err)
	require.Empty(t, p.RenderError)
	require.Nil(t, p.Approval)
	require.Equal(t, []string{
		"creates ClusterRoleBinding (rbac.authorization.k8s.io)",
		"binds ClusterRoleBinding of ClusterRole cluster-admin to ServiceAccount default",
	}, p.Pending().Lines())

	p, err = c.ApprovePermissions(ctx, "tiny", "1.0.0", "root", nil)
	require.NoError(t, err)
	require.Equal(t, "root", p.Approval.By)
	require.False(t, p.Approval.At.IsZero())
	require.True(t, p.Pending().Empty())

	_, err = c.ImportFS(ctx, bindingBundle("1.1.0"), "tiny", "alice")
	require.NoError(t, err)
	next, err := c.Permissions(ctx, "tiny", "1.1.0")
	require.NoError(t, err)
	require.Nil(t, next.Approval, "an approval of 1.0.0 does not carry to 1.1.0")
	require.Len(t, next.Pending().Lines(), 2)

	_, err = c.ApprovePermissions(ctx, "tiny", "2.0.0", "root", nil)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
}

// TestAnAdminApprovesWhatOtherValuesCreateInAdditionToTheDefaults: items
// beyond the default values' are approved for one version, kept when the
// defaults are approved afterwards, and shown as extra; items that name
// nothing are refused and change nothing.
func TestAnAdminApprovesWhatOtherValuesCreateInAdditionToTheDefaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	_, err := c.ImportFS(ctx, bindingBundle("1.0.0"), "tiny", "alice")
	require.NoError(t, err)

	extra := permissions.Set{Rules: []permissions.Rule{{Role: "ClusterRole", Resource: "nodes", Verb: "list"}}}
	p, err := c.ApprovePermissions(ctx, "tiny", "1.0.0", "root", &extra)
	require.NoError(t, err)
	require.Equal(t, []string{"grants ClusterRole: list nodes (core)"}, p.Extra().Lines())
	require.Len(t, p.Pending().Lines(), 2, "approving other items approves none of the defaults'")

	p, err = c.ApprovePermissions(ctx, "tiny", "1.0.0", "bob", nil)
	require.NoError(t, err)
	require.True(t, p.Pending().Empty())
	require.Equal(t, []string{"grants ClusterRole: list nodes (core)"}, p.Extra().Lines(), "the earlier items stay approved")
	require.Equal(t, "bob", p.Approval.By)

	_, err = c.ApprovePermissions(ctx, "tiny", "1.0.0", "root", &permissions.Set{Rules: []permissions.Rule{{Role: "Robot", Resource: "x", Verb: "y"}}})
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	_, err = c.ApprovePermissions(ctx, "tiny", "1.0.0", "root", &permissions.Set{})
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	after, err := c.Permissions(ctx, "tiny", "1.0.0")
	require.NoError(t, err)
	require.Equal(t, p.Approval.Set, after.Approval.Set, "a refused approval changes nothing")
}

// TestApprovalsAtOnceKeepEachOnesItems: admins approving different items of
// one version at the same time each see their items kept.
func TestApprovalsAtOnceKeepEachOnesItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	_, err := c.ImportFS(ctx, bindingBundle("1.0.0"), "tiny", "alice")
	require.NoError(t, err)
	const n = 6
	errs := make(chan error, n)
	for i := range n {
		go func() {
			items := permissions.Set{Rules: []permissions.Rule{{Role: "ClusterRole", Resource: fmt.Sprintf("r%d", i), Verb: "get"}}}
			_, err := c.ApprovePermissions(ctx, "tiny", "1.0.0", "root", &items)
			errs <- err
		}()
	}
	for range n {
		require.NoError(t, <-errs)
	}
	p, err := c.Permissions(ctx, "tiny", "1.0.0")
	require.NoError(t, err)
	require.Len(t, p.Extra().Rules, n)
}

// The bundled PostgreSQL driver's password is required and has no default:
// its chart renders at import with a placeholder for it, so its deploy form
// shows what it creates (nothing that needs approval) instead of an error.
func TestARequiredParameterWithoutDefaultDoesNotStopTheImportRender(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	_, err := c.ImportBundled(ctx, bundled.Bundles(), []string{"postgresql"})
	require.NoError(t, err)
	p, err := c.Permissions(ctx, "postgresql", "1.2.0")
	require.NoError(t, err)
	require.Empty(t, p.RenderError)
	require.True(t, p.Needs.Empty(), "PostgreSQL creates only namespaced objects: %v", p.Needs.Lines())
}

// A chart that does not render says why, in the chart's own words: the
// failure is the driver's to fix, not the server's.
func TestAChartThatDoesNotRenderSaysWhy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	b := tinyBundle("1.0.0", "# Tiny\n")
	b["tiny/chart/templates/broken.yaml"] = &fstest.MapFile{Data: []byte(`{{ fail "tiny needs a storage class" }}`)}
	_, err := c.ImportFS(ctx, b, "tiny", "alice")
	require.NoError(t, err)
	p, err := c.Permissions(ctx, "tiny", "1.0.0")
	require.NoError(t, err)
	require.Contains(t, p.RenderError, "Helm could not render the chart: ")
	require.Contains(t, p.RenderError, "tiny needs a storage class")
}

// A chart's own failure message is the driver author's text: what is kept
// and shown of it is bounded, however long it is.
func TestAChartsFailureMessageIsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	b := tinyBundle("1.0.0", "# Tiny\n")
	b["tiny/chart/templates/broken.yaml"] = &fstest.MapFile{Data: []byte(`{{ fail (repeat 100000 "é") }}`)}
	_, err := c.ImportFS(ctx, b, "tiny", "alice")
	require.NoError(t, err)
	p, err := c.Permissions(ctx, "tiny", "1.0.0")
	require.NoError(t, err)
	require.Contains(t, p.RenderError, "Helm could not render the chart: ")
	require.LessOrEqual(t, len(p.RenderError), 2000+len("…"))
	require.True(t, utf8.ValidString(p.RenderError), "cut between characters")
}

// A driver whose chart would exhaust the server's memory when rendered is
// refused at import's render with the budget's message, and the server
// lives on.
func TestAChartThatBombsIsRefusedAtItsBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	b := tinyBundle("1.0.0", "# Tiny\n")
	b["tiny/chart/templates/bomb.yaml"] = &fstest.MapFile{Data: []byte(`x: {{ repeat 2000000000 "x" }}`)}
	_, err := c.ImportFS(ctx, b, "tiny", "alice")
	require.NoError(t, err)
	p, err := c.Permissions(ctx, "tiny", "1.0.0")
	require.NoError(t, err)
	require.Contains(t, p.RenderError, "The templates of chart tiny need more than 512 MiB of memory to render")
	require.True(t, p.Needs.Empty())
}
