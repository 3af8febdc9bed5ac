package runner_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/runner"
)

// leftover is an object of a core resource, of Helm release release ("": none).
func leftover(resource, kind, name, release string) kube.Leftover {
	l := kube.Leftover{Resource: schema.GroupVersionResource{Version: "v1", Resource: resource}, Kind: kind, Meta: metav1.ObjectMeta{Name: name}}
	if release != "" {
		l.Meta.Annotations = map[string]string{"meta.helm.sh/release-name": release}
	}
	return l
}

// record is Helm's record of revision 1 of release.
func record(release string) kube.Leftover {
	l := leftover("secrets", "Secret", "sh.helm.release.v1."+release+".v1", "")
	l.Meta.Labels = map[string]string{"owner": "helm", "name": release}
	return l
}

func TestTheWarningOfAKeptNamespaceSaysWhatKeepsIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		others []string
		left   kube.Leftovers
		want   string
	}{
		{"another deployment and its release", []string{"blog"}, kube.Leftovers{Objects: []kube.Leftover{
			record("blog"), leftover("services", "Runners", "blog-web", "blog"), leftover("configmaps", "ConfigMap", "blog-web", "blog"),
		}}, "Namespace shop is kept: deployment blog also deploys into it; it still holds Helm release blog (of deployment blog; 3 objects). " +
			"The last of those deployments to be deleted removes it, if nothing else is left in it then."},

		{"another deployment whose release is gone just now", []string{"blog"}, kube.Leftovers{},
			"Namespace shop is kept: deployment blog also deploys into it. " +
				"The last of those deployments to be deleted removes it, if nothing else is left in it then."},

		{"volumes, a release made without Styrmin and someone's ConfigMap", nil, kube.Leftovers{Objects: []kube.Leftover{
			leftover("configmaps", "ConfigMap", "team-data", ""),
			leftover("persistentvolumeclaims", "PersistentVolumeClaim", "data-db-0", ""),
			leftover("persistentvolumeclaims", "PersistentVolumeClaim", "data-db-1", ""),
			record("cert-manager"),
		}}, "Namespace shop is kept: it still holds Helm release cert-manager (not this Styrmin's; 1 object), " +
			"2 PersistentVolumeClaims (data-db-0, data-db-1) and 1 ConfigMap (team-data). " +
			"Remove what is left and then the namespace yourself, if none of it is needed."},

		{"many other deployments", []string{"d", "c", "b", "a"}, kube.Leftovers{},
			"Namespace shop is kept: 4 other deployments (a, b, c, …) deploy into it. " +
				"The last of those deployments to be deleted removes it, if nothing else is left in it then."},

		{"a type Styrmin may not list", nil, kube.Leftovers{Unchecked: []kube.Unchecked{{Resource: "persistentvolumeclaims", Reason: "forbidden"}}},
			"Namespace shop is kept: Styrmin could not list 1 type, which may hold more: persistentvolumeclaims (forbidden). " +
				"Remove what is left and then the namespace yourself, if none of it is needed. " +
				"To let Styrmin check a namespace in full, give it list on every type (see Permissions in the operations guide)."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, runner.NamespaceKept("shop", tc.others, tc.left))
		})
	}
}
