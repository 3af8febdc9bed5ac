package deployer_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployer"
)

// TestADeployerIsAServiceAccountOfTheDeployersNamespace: a namespace's
// deployer is the ServiceAccount deployer-NAMESPACE of the configured
// deployers' namespace (styrmin-deployers by default), impersonated with the
// records group for Helm's records; a deployers' namespace that is no
// namespace name is refused with a message naming it.
func TestADeployerIsAServiceAccountOfTheDeployersNamespace(t *testing.T) {
	t.Parallel()
	config := &rest.Config{Host: "https://cluster.invalid"}
	byDefault, err := deployer.New(config, deployer.Options{})
	require.NoError(t, err)
	require.Equal(t, deployer.DefaultNamespace, byDefault.Namespace())
	require.Equal(t, rest.ImpersonationConfig{UserName: "system:serviceaccount:styrmin-deployers:deployer-team-a"}, byDefault.Impersonation("team-a"))

	own, err := deployer.New(config, deployer.Options{Namespace: "ops-deployers"})
	require.NoError(t, err)
	require.Equal(t, rest.ImpersonationConfig{UserName: "system:serviceaccount:ops-deployers:deployer-team-a", Groups: []string{deployer.RecordsGroup}},
		own.RecordsImpersonation("team-a"))

	for _, bad := range []string{"Deployers", "ops.deployers", "-deployers", "a-very-long-namespace-name-that-is-longer-than-sixty-three-characters"} {
		_, err := deployer.New(config, deployer.Options{Namespace: bad})
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), bad)
		require.ErrorContains(t, err, bad)
	}
}
