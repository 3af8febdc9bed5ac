package chartsecret_test

import (
	"context"
	"encoding/base64"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/styrmin/styrmin/chartsecret"
)

func get(t *testing.T, client *fake.Clientset, name string) *corev1.Secret {
	t.Helper()
	s, err := client.CoreV1().Secrets("ops").Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return s
}

func TestEnsureCreatesTheSecretWithFreshKeys(t *testing.T) {
	t.Parallel()
	client := fake.NewClientset()
	spec := chartsecret.Spec{Namespace: "ops", Name: "sm", Labels: map[string]string{"app.kubernetes.io/name": "styrmin"}}
	added, err := chartsecret.Ensure(context.Background(), client, spec)
	require.NoError(t, err)
	require.Equal(t, []string{"admin-password", "secret-key"}, added)
	s := get(t, client, "sm")
	key, err := base64.StdEncoding.DecodeString(string(s.Data["secret-key"]))
	require.NoError(t, err)
	require.Len(t, key, 32)
	require.Regexp(t, `^[A-Za-z0-9]{24}$`, string(s.Data["admin-password"]))
	require.Equal(t, "styrmin", s.Labels["app.kubernetes.io/name"])

	other := fake.NewClientset()
	_, err = chartsecret.Ensure(context.Background(), other, spec)
	require.NoError(t, err)
	require.NotEqual(t, s.Data["secret-key"], get(t, other, "sm").Data["secret-key"], "each install its own key")
}

// TestEnsureNeverChangesAnExistingKey: a second run (every upgrade's hook)
// keeps every value, and adds only what a new setting needs.
func TestEnsureNeverChangesAnExistingKey(t *testing.T) {
	t.Parallel()
	client := fake.NewClientset(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "sm"},
		Data: map[string][]byte{"secret-key": []byte("kept"), "admin-password": []byte("kept too"), "other": []byte("x")}})
	added, err := chartsecret.Ensure(context.Background(), client, chartsecret.Spec{Namespace: "ops", Name: "sm"})
	require.NoError(t, err)
	require.Empty(t, added)
	require.Equal(t, map[string][]byte{"secret-key": []byte("kept"), "admin-password": []byte("kept too"), "other": []byte("x")}, get(t, client, "sm").Data)

	added, err = chartsecret.Ensure(context.Background(), client, chartsecret.Spec{Namespace: "ops", Name: "sm", PostgreSQLHost: "sm-styrmin-postgresql"})
	require.NoError(t, err)
	require.Equal(t, []string{"database-url", "postgresql-password"}, added)
	s := get(t, client, "sm")
	require.Equal(t, "kept", string(s.Data["secret-key"]))
	u, err := url.Parse(string(s.Data["database-url"]))
	require.NoError(t, err)
	pw, _ := u.User.Password()
	require.Equal(t, string(s.Data["postgresql-password"]), pw, "the URL is built on the password the PostgreSQL pod gets")
	require.Equal(t, "sm-styrmin-postgresql:5432", u.Host)
}

func TestEnsureRefusesBadNames(t *testing.T) {
	t.Parallel()
	for name, spec := range map[string]chartsecret.Spec{
		"namespace": {Namespace: "Ops", Name: "sm"},
		"name":      {Namespace: "ops", Name: "../sm"},
		"host":      {Namespace: "ops", Name: "sm", PostgreSQLHost: "db:5432/x?"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := chartsecret.Ensure(context.Background(), fake.NewClientset(), spec)
			require.ErrorContains(t, err, "--"+map[string]string{"namespace": "namespace", "name": "name", "host": "postgresql-host"}[name])
		})
	}
}
