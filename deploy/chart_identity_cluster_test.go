package deploy_test

import (
	"context"
	"log/slog"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/releaseutil"
	authenticationv1 "k8s.io/api/authentication/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/styrmin/styrmin/deployer"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/release"
)

// identityCluster is the local cluster as its admin, with three namespaces:
// home (Styrmin's), listed (one rbac.namespaces names) and other (one
// Styrmin does not manage).
type identityCluster struct {
	config              *rest.Config
	admin               kubernetes.Interface
	home, listed, other string
}

func newIdentityCluster(t *testing.T) identityCluster {
	t.Helper()
	config, err := clientcmd.BuildConfigFromFlags("", kubetest.Kubeconfig(t))
	require.NoError(t, err)
	c := identityCluster{config: config, admin: kubernetes.NewForConfigOrDie(config),
		home: kubetest.UniqueName("chart-home"), listed: kubetest.UniqueName("chart-team"), other: kubetest.UniqueName("chart-other")}
	for _, ns := range []string{c.home, c.listed, c.other} {
		_, err := c.admin.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.admin.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	}
	return c
}

// applyIdentities creates the ServiceAccounts and RBAC objects the chart
// renders as release "styrmin" in c.home with values (not the hooks'),
// deleting the cluster-scoped ones when the test ends.
func (c identityCluster) applyIdentities(t *testing.T, values map[string]any) {
	t.Helper()
	ctx := context.Background()
	files, err := renderRelease(t, "styrmin", c.home, values)
	require.NoError(t, err)
	decode := scheme.Codecs.UniversalDeserializer().Decode
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if base := path.Base(name); base != "rbac.yaml" && base != "serviceaccount.yaml" {
			continue
		}
		for _, doc := range releaseutil.SplitManifests(files[name]) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			obj, _, err := decode([]byte(doc), nil, nil)
			require.NoError(t, err, doc)
			switch o := obj.(type) {
			case *corev1.ServiceAccount:
				_, err = c.admin.CoreV1().ServiceAccounts(c.home).Create(ctx, o, metav1.CreateOptions{})
			case *rbacv1.Role:
				_, err = c.admin.RbacV1().Roles(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
			case *rbacv1.RoleBinding:
				_, err = c.admin.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
			case *rbacv1.ClusterRole:
				_, err = c.admin.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
				t.Cleanup(func() {
					_ = c.admin.RbacV1().ClusterRoles().Delete(context.Background(), o.Name, metav1.DeleteOptions{})
				})
			case *rbacv1.ClusterRoleBinding:
				_, err = c.admin.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
				t.Cleanup(func() {
					_ = c.admin.RbacV1().ClusterRoleBindings().Delete(context.Background(), o.Name, metav1.DeleteOptions{})
				})
			default:
				t.Fatalf("%s renders a %T", name, obj)
			}
			require.NoError(t, err, doc)
		}
	}
}

// tokenConfig is a configuration that authenticates with a token of
// ServiceAccount account of c.home, as its pods' mounted token does.
func (c identityCluster) tokenConfig(t *testing.T, account string) *rest.Config {
	t.Helper()
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(int64(600))}}
	token, err := c.admin.CoreV1().ServiceAccounts(c.home).CreateToken(context.Background(), account, request, metav1.CreateOptions{})
	require.NoError(t, err)
	config := rest.AnonymousClientConfig(c.config)
	config.BearerToken = token.Status.Token
	return config
}

// as is a client with a token of ServiceAccount account of c.home.
func (c identityCluster) as(t *testing.T, account string) kubernetes.Interface {
	t.Helper()
	return kubernetes.NewForConfigOrDie(c.tokenConfig(t, account))
}

// asThrough is a client with which account's token impersonates someone.
func (c identityCluster) asThrough(t *testing.T, account string, someone rest.ImpersonationConfig) kubernetes.Interface {
	t.Helper()
	config := c.tokenConfig(t, account)
	config.Impersonate = someone
	return kubernetes.NewForConfigOrDie(config)
}

// attackPod is a pod an attacker would run.
func attackPod() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "attack-"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "x", Image: "busybox"}}}}
}

// TestChartWebIdentityChangesNothingOnTheCluster: with the chart's rules
// applied on the local cluster (the ClusterRole, and Roles in listed
// namespaces), a token of the web pods' ServiceAccount creates no Pod, Job or Secret in
// Styrmin's namespace, a managed one or another, reads no Secret (of
// kube-system or a managed namespace), binds nothing, relabels no namespace;
// impersonating the deployer of a namespace Styrmin does not deploy to gets
// it nothing there. It lists a managed namespace's pods (what pages read).
func TestChartWebIdentityChangesNothingOnTheCluster(t *testing.T) {
	modes := map[string]func(listed string) map[string]any{
		"cluster role": func(string) map[string]any { return externalDB() },
		"listed namespaces": func(listed string) map[string]any {
			values := externalDB()
			values["rbac"] = map[string]any{"namespaces": []any{listed}}
			return values
		},
	}
	for mode, values := range modes {
		t.Run(mode, func(t *testing.T) {
			c := newIdentityCluster(t)
			c.applyIdentities(t, values(c.listed))
			ctx := context.Background()
			web := c.as(t, "styrmin-web")
			kubetest.Eventually(t, "the web lists a managed namespace's pods", func() error {
				_, err := web.CoreV1().Pods(c.listed).List(ctx, metav1.ListOptions{})
				return err
			})
			for _, ns := range []string{c.home, c.listed, c.other} {
				_, err := web.CoreV1().Pods(ns).Create(ctx, attackPod(), metav1.CreateOptions{})
				kubetest.RequireForbidden(t, err, "the web creates a Pod in "+ns)
				_, err = web.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{GenerateName: "attack-"},
					Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: attackPod().Spec}}}, metav1.CreateOptions{})
				kubetest.RequireForbidden(t, err, "the web creates a Job in "+ns)
				_, err = web.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{GenerateName: "attack-"}}, metav1.CreateOptions{})
				kubetest.RequireForbidden(t, err, "the web creates a Secret in "+ns)
				_, err = web.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
				kubetest.RequireForbidden(t, err, "the web lists the Secrets of "+ns)
			}
			_, err := web.CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{})
			kubetest.RequireForbidden(t, err, "the web lists kube-system's Secrets")
			_, err = web.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{GenerateName: "attack-"},
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "styrmin-web", Namespace: c.home}}}, metav1.CreateOptions{})
			kubetest.RequireForbidden(t, err, "the web binds itself cluster-admin")
			_, err = web.RbacV1().RoleBindings(c.listed).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{GenerateName: "attack-"},
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "admin"},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "styrmin-web", Namespace: c.home}}}, metav1.CreateOptions{})
			kubetest.RequireForbidden(t, err, "the web binds itself admin in a managed namespace")
			_, err = web.CoreV1().Namespaces().Patch(ctx, c.listed, types.MergePatchType, []byte(`{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"privileged"}}}`), metav1.PatchOptions{})
			kubetest.RequireForbidden(t, err, "the web relabels a namespace")

			for _, ns := range []string{c.listed, c.other} {
				_, err = c.asThrough(t, "styrmin-web", deployer.Impersonation(ns)).CoreV1().Pods(ns).Create(ctx, attackPod(), kubetest.DryRun)
				kubetest.RequireForbidden(t, err, "the web acts as the deployer of "+ns)
			}
		})
	}
}

// TestChartWorkerIdentityStaysInItsNamespaces: with rbac.namespaces, the
// worker's ServiceAccount reads no Secret of kube-system or of a namespace
// the list does not name, creates no Pod there, binds nothing there and
// cannot impersonate that namespace's deployer; in the listed namespace it
// reads Secrets and creates pods (a dry run), as its work needs.
func TestChartWorkerIdentityStaysInItsNamespaces(t *testing.T) {
	c := newIdentityCluster(t)
	values := externalDB()
	values["rbac"] = map[string]any{"namespaces": []any{c.listed}}
	c.applyIdentities(t, values)
	ctx := context.Background()
	worker := c.as(t, "styrmin")
	kubetest.Eventually(t, "the worker lists the listed namespace's Secrets", func() error {
		_, err := worker.CoreV1().Secrets(c.listed).List(ctx, metav1.ListOptions{})
		return err
	})
	_, err := worker.CoreV1().Pods(c.listed).Create(ctx, attackPod(), kubetest.DryRun)
	require.NoError(t, err, "the worker runs action pods in the listed namespace")

	for _, ns := range []string{"kube-system", c.other} {
		_, err = worker.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
		kubetest.RequireForbidden(t, err, "the worker lists the Secrets of "+ns)
		_, err = worker.CoreV1().Secrets(ns).Get(ctx, "any", metav1.GetOptions{})
		kubetest.RequireForbidden(t, err, "the worker reads a Secret of "+ns)
		_, err = worker.CoreV1().Pods(ns).Create(ctx, attackPod(), kubetest.DryRun)
		kubetest.RequireForbidden(t, err, "the worker creates a Pod in "+ns)
		_, err = worker.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{GenerateName: "attack-"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "admin"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "styrmin", Namespace: c.home}}}, kubetest.DryRun)
		kubetest.RequireForbidden(t, err, "the worker binds itself admin in "+ns)
	}
	_, err = c.asThrough(t, "styrmin", deployer.Impersonation(c.other)).CoreV1().ConfigMaps(c.other).List(ctx, metav1.ListOptions{})
	kubetest.RequireForbidden(t, err, "the worker impersonates the deployer of a namespace it does not manage")
	_, err = worker.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: kubetest.UniqueName("chart-new")}}, kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "the worker creates a namespace")
}

// TestChartWebIdentityActsOnlyAsTheReviewerWhichOnlyDryRuns: the web pods
// hold no right to Secrets and impersonate no deployer; with their token,
// Helm's records of a release (in a namespace whose deployer and reviewer
// Styrmin made) are read as the namespace's reviewer
// (deployment.ClusterOptions.ReviewOnly, which app.New sets for a process
// that works no task): the history and status read, an upgrade dry-runs, and
// read with the token's own identity they are refused. As the reviewer, the
// web changes nothing: a real upgrade, a Pod, a ConfigMap's deletion, an exec
// into a pod, a token of the namespace's ServiceAccount, a forged Helm record
// are refused by the reviewers' policy.
func TestChartWebIdentityActsOnlyAsTheReviewerWhichOnlyDryRuns(t *testing.T) {
	c := newIdentityCluster(t)
	c.applyIdentities(t, externalDB())
	ctx := context.Background()
	deployers, err := deployer.New(c.config, deployer.PodSecurity{})
	require.NoError(t, err)
	require.NoError(t, deployers.Ensure(ctx, c.listed))
	logger := slog.New(slog.DiscardHandler)
	styrmin, err := release.New(c.config, release.Options{ActAs: deployer.Impersonation}, logger)
	require.NoError(t, err)
	app := &chart.Chart{Metadata: &chart.Metadata{APIVersion: chart.APIVersionV2, Name: "app", Version: "0.1.0"},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\n")}}}
	owner := release.Owner{Installation: "test", Deployment: 1}
	_, err = styrmin.Install(ctx, release.InstallOptions{Namespace: c.listed, Name: "app", Chart: app, Owner: owner})
	require.NoError(t, err)

	webToken := c.tokenConfig(t, "styrmin-web")
	web, err := release.New(webToken, release.Options{ActAs: deployer.ReviewerImpersonation, RecordsAsActor: true}, logger)
	require.NoError(t, err)
	kubetest.Eventually(t, "the web reads the release's history as the reviewer", func() error {
		_, err := web.History(ctx, c.listed, "app")
		return err
	})
	status, err := web.Status(ctx, c.listed, "app")
	require.NoError(t, err)
	require.Equal(t, 1, status.Revision.Number)
	_, err = web.Upgrade(ctx, release.UpgradeOptions{Namespace: c.listed, Name: "app", Owner: owner, Chart: app, DryRun: true})
	require.NoError(t, err, "the upgrade review's dry run")

	own, err := release.New(webToken, release.Options{ActAs: deployer.ReviewerImpersonation}, logger)
	require.NoError(t, err)
	_, err = own.History(ctx, c.listed, "app")
	require.ErrorContains(t, err, "forbidden", "the web's own identity reads no Helm record")
	_, err = web.Upgrade(ctx, release.UpgradeOptions{Namespace: c.listed, Name: "app", Owner: owner, Chart: app})
	require.ErrorContains(t, err, "denied", "a real upgrade as the reviewer (its record refused by the records policy, and by the reviewers policy)")
	history, err := styrmin.History(ctx, c.listed, "app")
	require.NoError(t, err)
	require.Len(t, history, 1, "no revision was added")

	reviewer := c.asThrough(t, "styrmin-web", deployer.ReviewerImpersonation(c.listed))
	_, err = reviewer.CoreV1().Pods(c.listed).Create(ctx, attackPod(), kubetest.DryRun)
	require.NoError(t, err, "the reviewer dry-runs a Pod")
	_, err = reviewer.CoreV1().Pods(c.listed).Create(ctx, attackPod(), metav1.CreateOptions{})
	kubetest.RequireForbidden(t, err, "the web creates a Pod as the reviewer")
	require.ErrorContains(t, err, deployer.ReviewersPolicy)
	err = reviewer.CoreV1().ConfigMaps(c.listed).Delete(ctx, "app", metav1.DeleteOptions{})
	kubetest.RequireForbidden(t, err, "the web deletes the release's ConfigMap as the reviewer")
	err = reviewer.CoreV1().RESTClient().Post().Namespace(c.listed).Resource("pods").Name("app").SubResource("exec").
		Param("container", "app").Param("command", "id").Param("stdout", "true").Do(ctx).Error()
	kubetest.RequireForbidden(t, err, "the web execs into a pod as the reviewer")
	require.ErrorContains(t, err, deployer.ReviewersPolicy)
	_, err = reviewer.CoreV1().ServiceAccounts(c.listed).CreateToken(ctx, "default", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	kubetest.RequireForbidden(t, err, "the web mints a token as the reviewer")
	_, err = reviewer.CoreV1().Secrets(c.listed).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "sh.helm.release.v1.app.v2", Labels: map[string]string{"owner": "helm"}}}, metav1.CreateOptions{})
	kubetest.RequireForbidden(t, err, "the web forges a Helm record as the reviewer")
	_, err = c.asThrough(t, "styrmin-web", deployer.ReviewerImpersonation(c.other)).CoreV1().Secrets(c.other).List(ctx, metav1.ListOptions{})
	kubetest.RequireForbidden(t, err, "the web reads a namespace Styrmin does not deploy to as a reviewer there is none of")
}
