package deploy_test

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"
	admissionv1 "k8s.io/api/admissionregistration/v1"
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
	"github.com/styrmin/styrmin/kube"
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

// applyIdentities creates the ServiceAccounts, RBAC objects, the deployers'
// namespace and the worker's policy the chart renders as release "styrmin"
// in c.home with values (not the hooks'), deleting the cluster-scoped ones
// when the test ends. It returns the Client of the worker's deployers, with
// Styrmin's admin identity.
func (c identityCluster) applyIdentities(t *testing.T, values map[string]any) *deployer.Client {
	t.Helper()
	ctx := context.Background()
	files, err := renderRelease(t, "styrmin", c.home, values)
	require.NoError(t, err)
	decode := scheme.Codecs.UniversalDeserializer().Decode
	deployers := ""
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if base := path.Base(name); base != "deployers.yaml" && base != "rbac.yaml" && base != "serviceaccount.yaml" && base != "worker-policy.yaml" {
			continue
		}
		for _, doc := range manifestDocs(files[name]) { // the deployers' namespace before what it holds
			if strings.TrimSpace(doc) == "" {
				continue
			}
			obj, _, err := decode([]byte(doc), nil, nil)
			require.NoError(t, err, doc)
			switch o := obj.(type) {
			case *corev1.Namespace:
				deployers = o.Name
				_, err = c.admin.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{})
				t.Cleanup(func() { _ = c.admin.CoreV1().Namespaces().Delete(context.Background(), o.Name, metav1.DeleteOptions{}) })
			case *corev1.ResourceQuota:
				_, err = c.admin.CoreV1().ResourceQuotas(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
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
			case *admissionv1.ValidatingAdmissionPolicy:
				_, err = c.admin.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, o, metav1.CreateOptions{})
				t.Cleanup(func() {
					_ = c.admin.AdmissionregistrationV1().ValidatingAdmissionPolicies().Delete(context.Background(), o.Name, metav1.DeleteOptions{})
				})
			case *admissionv1.ValidatingAdmissionPolicyBinding:
				_, err = c.admin.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, o, metav1.CreateOptions{})
				t.Cleanup(func() {
					_ = c.admin.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Delete(context.Background(), o.Name, metav1.DeleteOptions{})
				})
			default:
				t.Fatalf("%s renders a %T", name, obj)
			}
			require.NoError(t, err, doc)
		}
	}
	require.NotEmpty(t, deployers, "the chart makes the deployers' namespace")
	client, err := deployer.New(c.config, deployer.Options{Namespace: deployers})
	require.NoError(t, err)
	return client
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
			deployers := c.applyIdentities(t, values(c.listed))
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
				_, err = c.asThrough(t, "styrmin-web", deployers.Impersonation(ns)).CoreV1().Pods(ns).Create(ctx, attackPod(), kubetest.DryRun)
				kubetest.RequireForbidden(t, err, "the web acts as the deployer of "+ns)
			}
		})
	}
}

// TestChartWorkerIdentityStaysInItsNamespaces: with rbac.namespaces, the
// worker's ServiceAccount makes the listed namespace's deployer and
// reviewer, and then acts there only as that deployer (its own token reads
// no Secret and creates no pod even there); it reads no Secret of
// kube-system or of a namespace the list does not name, creates no Pod
// there, binds nothing there and cannot impersonate that namespace's
// deployer.
func TestChartWorkerIdentityStaysInItsNamespaces(t *testing.T) {
	c := newIdentityCluster(t)
	values := externalDB()
	values["rbac"] = map[string]any{"namespaces": []any{c.listed}}
	deployers := c.applyIdentities(t, values)
	ctx := context.Background()
	worker := c.as(t, "styrmin")
	c.markAsAdmin(t, c.listed)
	c.ensureAsWorker(t, deployers, c.listed)
	_, err := c.asThrough(t, "styrmin", deployers.Impersonation(c.listed)).CoreV1().Pods(c.listed).Create(ctx, attackPod(), kubetest.DryRun)
	require.NoError(t, err, "the worker runs action pods in the listed namespace as its deployer")
	_, err = worker.CoreV1().Secrets(c.listed).List(ctx, metav1.ListOptions{})
	kubetest.RequireForbidden(t, err, "the worker lists the listed namespace's Secrets with its own identity")

	for _, ns := range []string{"kube-system", c.other} {
		_, err = worker.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
		kubetest.RequireForbidden(t, err, "the worker lists the Secrets of "+ns)
		_, err = worker.CoreV1().Secrets(ns).Get(ctx, "any", metav1.GetOptions{})
		kubetest.RequireForbidden(t, err, "the worker reads a Secret of "+ns)
		_, err = worker.CoreV1().Pods(ns).Create(ctx, attackPod(), kubetest.DryRun)
		kubetest.RequireForbidden(t, err, "the worker creates a Pod in "+ns)
		_, err = worker.RbacV1().RoleBindings(ns).Create(ctx, adminBinding(c.home), kubetest.DryRun)
		kubetest.RequireForbidden(t, err, "the worker binds itself admin in "+ns)
	}
	_, err = c.asThrough(t, "styrmin", deployers.Impersonation(c.other)).CoreV1().ConfigMaps(c.other).List(ctx, metav1.ListOptions{})
	kubetest.RequireForbidden(t, err, "the worker impersonates the deployer of a namespace it does not manage")
	_, err = worker.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: kubetest.UniqueName("chart-new")}}, kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "the worker creates a namespace")
}

// ensureAsWorker makes namespace's deployer and reviewer with the worker's
// token, as the worker does before each task there, with the deployers'
// namespace of deployers.
func (c identityCluster) ensureAsWorker(t *testing.T, deployers *deployer.Client, namespace string) {
	t.Helper()
	worker, err := deployer.New(c.tokenConfig(t, "styrmin"), deployer.Options{Namespace: deployers.Namespace()})
	require.NoError(t, err)
	kubetest.Eventually(t, "the worker makes the deployer of "+namespace, func() error { return worker.Ensure(context.Background(), namespace) })
}

// markAsAdmin labels namespace as one Styrmin deploys to, as a cluster
// admin does for a namespace Styrmin did not create (docs/operations.md).
func (c identityCluster) markAsAdmin(t *testing.T, namespace string) {
	t.Helper()
	_, err := c.admin.CoreV1().Namespaces().Patch(context.Background(), namespace, types.MergePatchType, deploymentsMark, metav1.PatchOptions{})
	require.NoError(t, err)
}

// deploymentsMark is the merge patch that marks a namespace as one Styrmin deploys to.
var deploymentsMark = fmt.Appendf(nil, `{"metadata":{"labels":{%q:"true"}}}`, deployer.DeploymentsLabel)

// adminBinding is a RoleBinding of admin to the worker of namespace home.
func adminBinding(home string) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{GenerateName: "attack-"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "admin"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "styrmin", Namespace: home}}}
}

// TestChartWorkerIdentityHoldsNothingInsideNamespaces: with the default
// ClusterRole, the worker's real token makes a namespace's deployer (a
// ServiceAccount of the chart's deployers' namespace) and reviewer in a
// namespace an admin marked as Styrmin's, installs a chart there as the
// deployer (its records written in deployer.RecordsGroup), runs a pod,
// reads its workloads and uninstalls, all through the deployer
// (kube.Client.ActingAs, release.Options). With its own identity it reads
// no Secret of another namespace, not even the managed one's, creates no
// pod in kube-system, impersonates no user (not one bound to cluster-admin
// by name, not a deployer of old, a user) and no ServiceAccount outside the
// deployers' namespace, and mints no token for a deployer nor runs a pod
// there; the chart's ValidatingAdmissionPolicy refuses it a RoleBinding to
// admin or a ServiceAccount in a namespace not marked as Styrmin's, the mark
// on a namespace that exists (kube-system, its own, the deployers', any
// other), and lets it mark only a namespace it creates, and refuses it the
// deletion of a namespace not marked as Styrmin's (its own, the deployers',
// any other) while it lets it delete a marked one.
func TestChartWorkerIdentityHoldsNothingInsideNamespaces(t *testing.T) {
	c := newIdentityCluster(t)
	deployers := c.applyIdentities(t, externalDB())
	ctx := context.Background()
	workerConfig := c.tokenConfig(t, "styrmin")
	worker := kubernetes.NewForConfigOrDie(workerConfig)
	c.markAsAdmin(t, c.listed)
	c.ensureAsWorker(t, deployers, c.listed)

	styrmin, err := release.New(workerConfig, release.Options{ActAs: deployers.Impersonation, RecordsAs: deployers.RecordsImpersonation}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	app := &chart.Chart{Metadata: &chart.Metadata{APIVersion: chart.APIVersionV2, Name: "app", Version: "0.1.0"},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\n")}}}
	owner := release.Owner{Installation: "test", Deployment: 1}
	_, err = styrmin.Install(ctx, release.InstallOptions{Namespace: c.listed, Name: "app", Chart: app, Owner: owner})
	require.NoError(t, err, "the worker installs as the deployer")
	own, err := kube.New(workerConfig)
	require.NoError(t, err)
	acting, err := own.ActingAs(deployers.Impersonation)
	require.NoError(t, err)
	_, err = acting.Clientset.CoreV1().Pods(c.listed).Create(ctx, attackPod(), kubetest.DryRun)
	require.NoError(t, err, "an action pod, as the deployer")
	_, err = acting.Clientset.CoreV1().Secrets(c.listed).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{GenerateName: "run-"}}, kubetest.DryRun)
	require.NoError(t, err, "an action pod's Secret, as the deployer")
	_, err = acting.Clientset.AppsV1().Deployments(c.listed).List(ctx, metav1.ListOptions{})
	require.NoError(t, err, "the release's workloads, as the deployer")
	_, err = styrmin.Uninstall(ctx, release.UninstallOptions{Namespace: c.listed, Name: "app", Owner: owner})
	require.NoError(t, err, "the worker uninstalls as the deployer")

	_, err = worker.CoreV1().Secrets(c.other).Get(ctx, "any", metav1.GetOptions{})
	kubetest.RequireForbidden(t, err, "the worker reads a Secret of a namespace Styrmin does not manage")
	_, err = acting.Clientset.CoreV1().Secrets(c.other).Get(ctx, "any", metav1.GetOptions{})
	kubetest.RequireForbidden(t, err, "the worker reads it as that namespace's deployer, which it never made")
	for _, ns := range []string{c.listed, "kube-system", c.home} {
		_, err = worker.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
		kubetest.RequireForbidden(t, err, "the worker lists the Secrets of "+ns)
	}
	_, err = worker.CoreV1().Pods("kube-system").Create(ctx, attackPod(), kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "the worker creates a pod in kube-system")
	_, err = worker.BatchV1().Jobs(c.listed).Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{GenerateName: "attack-"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: attackPod().Spec}}}, kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "the worker creates a Job with its own identity, even where it deploys")

	c.requireWorkerImpersonatesOnlyDeployers(t, deployers)

	policy := "styrmin-" + c.home + "-worker"
	for _, ns := range []string{c.other, "kube-system", c.home} {
		_, err = worker.RbacV1().RoleBindings(ns).Create(ctx, adminBinding(c.home), kubetest.DryRun)
		requireRefusedBy(t, err, policy, "the worker binds itself admin in "+ns)
		_, err = worker.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{GenerateName: "attack-"}}, kubetest.DryRun)
		requireRefusedBy(t, err, policy, "the worker makes a ServiceAccount in "+ns)
	}
	for _, ns := range []string{"kube-system", "default", c.home, deployers.Namespace(), c.other} {
		_, err = worker.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, deploymentsMark, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		requireRefusedBy(t, err, policy, "the worker marks the existing namespace "+ns+" as Styrmin's")
	}
	fresh := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: kubetest.UniqueName("chart-fresh"), Labels: map[string]string{deployer.DeploymentsLabel: "true"}}}
	_, err = worker.CoreV1().Namespaces().Create(ctx, fresh, kubetest.DryRun)
	require.NoError(t, err, "the worker marks a namespace it creates as Styrmin's")

	dryRunDelete := metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}
	for _, ns := range []string{c.home, deployers.Namespace(), c.other} {
		err = worker.CoreV1().Namespaces().Delete(ctx, ns, dryRunDelete)
		requireRefusedBy(t, err, policy, "the worker deletes the namespace "+ns+", which Styrmin does not deploy to")
	}
	err = worker.CoreV1().Namespaces().Delete(ctx, "kube-system", dryRunDelete)
	kubetest.RequireForbidden(t, err, "the worker deletes kube-system (which Kubernetes never deletes, whatever the policy)")
	err = worker.CoreV1().Namespaces().Delete(ctx, c.listed, dryRunDelete)
	require.NoError(t, err, "the worker deletes a namespace it deploys to")
}

// requireWorkerImpersonatesOnlyDeployers: with the worker's token, a user
// bound to cluster-admin by name, the user a deployer was before, and a
// ServiceAccount outside the deployers' namespace cannot be impersonated; a
// deployer's ServiceAccount gets no token and no pod runs as it.
func (c identityCluster) requireWorkerImpersonatesOnlyDeployers(t *testing.T, deployers *deployer.Client) {
	t.Helper()
	ctx := context.Background()
	admin := kubetest.UniqueName("chart-admin")
	_, err := c.admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: admin},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: admin}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = c.admin.RbacV1().ClusterRoleBindings().Delete(context.Background(), admin, metav1.DeleteOptions{})
	})
	for _, user := range []string{admin, "styrmin:deployer:" + c.listed, "system:serviceaccount:kube-system:default", "system:serviceaccount:" + c.listed + ":" + deployer.Account(c.listed)} {
		_, err = c.asThrough(t, "styrmin", rest.ImpersonationConfig{UserName: user}).CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{})
		kubetest.RequireForbidden(t, err, "the worker impersonates "+user)
		require.ErrorContains(t, err, "cannot impersonate", user)
	}

	worker := c.as(t, "styrmin")
	home, account := deployers.Namespace(), deployer.Account(c.listed)
	_, err = worker.CoreV1().ServiceAccounts(home).Get(ctx, account, metav1.GetOptions{})
	require.NoError(t, err, "the worker made the deployer's ServiceAccount in the deployers' namespace")
	_, err = worker.CoreV1().ServiceAccounts(home).CreateToken(ctx, account, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	kubetest.RequireForbidden(t, err, "the worker mints a token for a deployer")
	_, err = worker.CoreV1().Secrets(home).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{GenerateName: "attack-",
		Annotations: map[string]string{corev1.ServiceAccountNameKey: account}}, Type: corev1.SecretTypeServiceAccountToken}, kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "the worker asks for a deployer's token Secret")
	pod := attackPod()
	pod.Spec.ServiceAccountName = account
	_, err = worker.CoreV1().Pods(home).Create(ctx, pod, kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "the worker runs a pod as a deployer")
	_, err = c.asThrough(t, "styrmin", deployers.Impersonation(c.listed)).CoreV1().ServiceAccounts(home).CreateToken(ctx, account, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	kubetest.RequireForbidden(t, err, "the worker mints a deployer's token as that deployer")
}

// requireRefusedBy checks that the ValidatingAdmissionPolicy policy refused a request.
func requireRefusedBy(t *testing.T, err error, policy, what string) {
	t.Helper()
	kubetest.RequireForbidden(t, err, what)
	require.ErrorContains(t, err, "ValidatingAdmissionPolicy '"+policy+"'", what)
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
	deployers := c.applyIdentities(t, externalDB())
	ctx := context.Background()
	require.NoError(t, deployers.Ensure(ctx, c.listed))
	logger := slog.New(slog.DiscardHandler)
	styrmin, err := release.New(c.config, release.Options{ActAs: deployers.Impersonation, RecordsAs: deployers.RecordsImpersonation}, logger)
	require.NoError(t, err)
	app := &chart.Chart{Metadata: &chart.Metadata{APIVersion: chart.APIVersionV2, Name: "app", Version: "0.1.0"},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\n")}}}
	owner := release.Owner{Installation: "test", Deployment: 1}
	_, err = styrmin.Install(ctx, release.InstallOptions{Namespace: c.listed, Name: "app", Chart: app, Owner: owner})
	require.NoError(t, err)

	webToken := c.tokenConfig(t, "styrmin-web")
	web, err := release.New(webToken, release.Options{ActAs: deployer.ReviewerImpersonation, RecordsAs: deployer.ReviewerImpersonation}, logger)
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
