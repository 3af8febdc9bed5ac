package catalog_test

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
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

	p, err = c.ApprovePermissions(ctx, "tiny", "1.0.0", "root")
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

	_, err = c.ApprovePermissions(ctx, "tiny", "2.0.0", "root")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
}
