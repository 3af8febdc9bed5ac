package deploy_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/deployer"
)

// The chart's two identities (release "sm" in namespace "ops").
const (
	workerAccount = "sm-styrmin"
	webAccount    = "sm-styrmin-web"
)

// readVerbs are the verbs that change nothing.
var readVerbs = []string{"get", "list", "watch"}

// grantsOf are the rules the chart gives ServiceAccount account of namespace
// "ops", by the namespace they hold in ("" for cluster-wide): its Roles' and
// ClusterRoles' through every binding naming it (not the keys hook's).
func grantsOf(r rendered, account string) map[string][]rbacv1.PolicyRule {
	names := func(subjects []rbacv1.Subject) bool {
		return slices.Contains(subjects, rbacv1.Subject{Kind: "ServiceAccount", Name: account, Namespace: "ops"})
	}
	grants := map[string][]rbacv1.PolicyRule{}
	for _, b := range all[*rbacv1.ClusterRoleBinding](r) {
		if names(b.Subjects) {
			grants[""] = append(grants[""], find[*rbacv1.ClusterRole](r, b.RoleRef.Name).Rules...)
		}
	}
	for _, b := range all[*rbacv1.RoleBinding](r) {
		if !names(b.Subjects) || b.Annotations["helm.sh/hook"] != "" {
			continue
		}
		for _, role := range all[*rbacv1.Role](r) {
			if role.Name == b.RoleRef.Name && role.Namespace == b.Namespace {
				grants[b.Namespace] = append(grants[b.Namespace], role.Rules...)
			}
		}
	}
	return grants
}

// namespaceVerbs are the verbs rules grant on namespaces.
func namespaceVerbs(rules []rbacv1.PolicyRule) []string {
	var verbs []string
	for _, r := range rules {
		if slices.Contains(r.Resources, "namespaces") {
			verbs = append(verbs, r.Verbs...)
		}
	}
	return verbs
}

// impersonated are the identities rules let their holder impersonate, as
// resource/name ("users/" for any user).
func impersonated(rules []rbacv1.PolicyRule) []string {
	var who []string
	for _, r := range rules {
		if !slices.Contains(r.Verbs, "impersonate") {
			continue
		}
		for _, resource := range r.Resources {
			if len(r.ResourceNames) == 0 {
				who = append(who, resource+"/")
			}
			for _, name := range r.ResourceNames {
				who = append(who, resource+"/"+name)
			}
		}
	}
	return who
}

// requireOnlyReads fails unless every rule only reads, but for impersonating
// the reviewers (Helm's records, the upgrade review's dry run).
func requireOnlyReads(t *testing.T, rules []rbacv1.PolicyRule) {
	t.Helper()
	require.NotEmpty(t, rules)
	for _, rule := range rules {
		if slices.Contains(rule.Verbs, "impersonate") {
			require.Equal(t, []string{"impersonate"}, rule.Verbs)
			continue
		}
		for _, verb := range rule.Verbs {
			require.Contains(t, readVerbs, verb, "the web pods change nothing: %+v", rule)
		}
		require.NotContains(t, rule.Resources, "*")
		require.NotContains(t, rule.APIGroups, "*")
		require.NotContains(t, rule.Resources, "secrets", "the web pods read Helm's records as the deployer")
	}
}

// TestChartWebPodsAndTheWorkerHaveIdentitiesOfTheirOwn: the web pods run as
// a ServiceAccount of their own; the worker and the action API, whose
// primitives run Jobs, as the worker's.
func TestChartWebPodsAndTheWorkerHaveIdentitiesOfTheirOwn(t *testing.T) {
	t.Parallel()
	r := render(t, externalDB())
	accounts := map[string]string{}
	for _, d := range all[*appsv1.Deployment](r) {
		accounts[d.Name] = d.Spec.Template.Spec.ServiceAccountName
	}
	require.Equal(t, map[string]string{"sm-styrmin-web": webAccount, "sm-styrmin-worker": workerAccount, "sm-styrmin-actions": workerAccount}, accounts)
	var names []string
	for _, sa := range all[*corev1.ServiceAccount](r) {
		if sa.Annotations["helm.sh/hook"] == "" {
			names = append(names, sa.Name)
		}
	}
	require.ElementsMatch(t, []string{workerAccount, webAccount}, names)
	require.Empty(t, find[*batchv1.Job](r, "sm-styrmin-migrate").Spec.Template.Spec.ServiceAccountName, "the migration is no Styrmin identity")
}

// TestChartWebIdentityOnlyReads: with the default ClusterRole and with
// listed namespaces, every rule the web pods hold reads (a release's
// workloads, pods and Services, nodes; no Secret), but for impersonating
// each namespace's reviewer, which their reading of Helm's records and the
// upgrade review's dry run act as, and no user; nothing of the
// worker's (namespaces, RBAC, Jobs, the records policy, grants) is theirs.
func TestChartWebIdentityOnlyReads(t *testing.T) {
	t.Parallel()
	grants := grantsOf(render(t, externalDB()), webAccount)
	require.Len(t, grants, 1, "cluster-wide only")
	requireOnlyReads(t, grants[""])
	require.Empty(t, namespaceVerbs(grants[""]))
	require.Equal(t, []string{"serviceaccounts/styrmin-reviewer"}, impersonated(grants[""]), "no user: only each namespace's reviewer, which only dry-runs")

	values := externalDB()
	values["rbac"] = map[string]any{"namespaces": []any{"team-a", "team-b"}}
	grants = grantsOf(render(t, values), webAccount)
	require.Len(t, grants, 3, "team-a, team-b and cluster-wide")
	for ns, rules := range grants {
		requireOnlyReads(t, rules)
		require.Empty(t, namespaceVerbs(rules), ns)
	}
	require.Empty(t, impersonated(grants[""]))
	require.Equal(t, []string{"serviceaccounts/styrmin-reviewer"}, impersonated(grants["team-a"]), "the listed namespaces' reviewers only")
	for _, rule := range grants[""] {
		require.Equal(t, []string{"nodes"}, rule.Resources, "cluster-wide: nodes only: %+v", rule)
	}
}

// deployersNamespace is the chart's deployers' namespace of release "sm" in "ops".
const deployersNamespace = "sm-styrmin-ops-deployers"

// requireDeployersRole checks the worker's Role in the deployers'
// namespace: it makes ServiceAccounts there and impersonates the named ones
// (all when none is named), and holds nothing that mints a token or runs a
// pod as them; no pod may run there at all.
func requireDeployersRole(t *testing.T, r rendered, impersonates ...string) {
	t.Helper()
	rules := grantsOf(r, workerAccount)[deployersNamespace]
	require.Equal(t, impersonates, impersonated(rules))
	for _, rule := range rules {
		require.Equal(t, []string{"serviceaccounts"}, rule.Resources, "no token, Secret or pod in the deployers' namespace: %+v", rule)
		require.NotContains(t, rule.Verbs, "*")
	}
	quota := find[*corev1.ResourceQuota](r, "no-pods")
	require.Equal(t, deployersNamespace, quota.Namespace)
	require.Equal(t, "0", quota.Spec.Hard.Pods().String(), "no pod runs in the deployers' namespace")
	require.NotNil(t, find[*corev1.Namespace](r, deployersNamespace))
	worker := find[*appsv1.Deployment](r, "sm-styrmin-worker").Spec.Template.Spec.Containers[0]
	require.Contains(t, worker.Env, corev1.EnvVar{Name: "STYRMIN_DEPLOYERS_NAMESPACE", Value: deployersNamespace})
}

// TestChartRBACIsOneClusterRoleByDefault: the worker's rules are one
// ClusterRole, without wildcards, that may bind no role but admin (to its
// deployers), impersonate no user and nothing inside a namespace but the
// reviewers' ServiceAccounts and RoleBindings (no Secret, pod, Job,
// workload: it acts as each namespace's deployer there), and a Role in the
// deployers' namespace that impersonates the deployers; granting what
// admins approve is a second ClusterRole, the worker's only, absent when
// rbac.grantApproved is off.
func TestChartRBACIsOneClusterRoleByDefault(t *testing.T) {
	t.Parallel()
	r := render(t, externalDB())
	roles := slices.DeleteFunc(all[*rbacv1.Role](r), func(role *rbacv1.Role) bool { return role.Annotations["helm.sh/hook"] != "" })
	require.Len(t, roles, 1, "the deployers' Role only")
	requireDeployersRole(t, r, "serviceaccounts/")
	own := find[*rbacv1.ClusterRole](r, "sm-styrmin-ops")
	require.NotNil(t, own)
	require.Equal(t, []string{"get", "list", "watch", "create", "delete", "patch", "update"}, namespaceVerbs(own.Rules))
	for _, name := range []string{"sm-styrmin-ops", "sm-styrmin-ops-grants"} {
		binding := find[*rbacv1.ClusterRoleBinding](r, name)
		require.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: workerAccount, Namespace: "ops"}}, binding.Subjects, name)
	}
	require.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: webAccount, Namespace: "ops"}}, find[*rbacv1.ClusterRoleBinding](r, "sm-styrmin-ops-web").Subjects)
	require.Len(t, all[*rbacv1.ClusterRoleBinding](r), 3, "the worker's, the web's, the worker's grants")
	for _, rule := range own.Rules {
		require.NotContains(t, rule.Verbs, "*", "no wildcards")
		require.NotContains(t, rule.Resources, "*")
		require.Empty(t, slices.DeleteFunc(slices.Clone(rule.Resources), func(r string) bool {
			return !slices.Contains([]string{"secrets", "configmaps", "pods", "pods/log", "jobs", "deployments", "statefulsets", "events"}, r)
		}), "nothing of its own inside a namespace: %+v", rule)
		if slices.Contains(rule.Resources, "validatingadmissionpolicies") && !slices.Equal(rule.Verbs, []string{"create"}) {
			require.Equal(t, []string{deployer.RecordsPolicy, deployer.ReviewersPolicy}, rule.ResourceNames, "it changes only the policies its code makes, not the chart's")
		}
		if slices.Contains(rule.Resources, "clusterroles") {
			require.Equal(t, []string{"bind"}, rule.Verbs, "Styrmin cannot grant itself more")
			require.Equal(t, []string{"admin", deployer.ListerRole}, rule.ResourceNames, "it binds only admin and the lister, to its deployers")
		}
	}
	require.ElementsMatch(t, []string{"serviceaccounts/styrmin-reviewer", "groups/" + deployer.RecordsGroup}, impersonated(own.Rules),
		"no user, the reviewers, to see their policy in force, and the group Helm's records are written in")

	values := externalDB()
	values["rbac"] = map[string]any{"grantApproved": false}
	require.Nil(t, find[*rbacv1.ClusterRole](render(t, values), "sm-styrmin-ops-grants"), "no grants role when grants are off")
}

// TestChartRBACCanBeLimitedToListedNamespaces: with rbac.namespaces, the
// worker's namespaced rules are Roles in those namespaces only, and it
// cannot create or delete namespaces nor impersonate other deployers.
func TestChartRBACCanBeLimitedToListedNamespaces(t *testing.T) {
	t.Parallel()
	values := externalDB()
	values["rbac"] = map[string]any{"namespaces": []any{"team-a", "team-b"}}
	grants := grantsOf(render(t, values), workerAccount)
	require.Len(t, grants, 4, "team-a, team-b, the deployers' namespace and cluster-wide")
	require.Empty(t, namespaceVerbs(grants["team-a"]))
	require.Equal(t, []string{"get", "patch", "update"}, namespaceVerbs(grants[""]), "it cannot create or delete namespaces")
	for _, rule := range grants[""] {
		if slices.Contains(rule.Resources, "namespaces") {
			require.Equal(t, []string{"team-a", "team-b"}, rule.ResourceNames)
		}
		require.NotContains(t, rule.Resources, "secrets", "no Secret outside the listed namespaces")
		require.NotContains(t, rule.Resources, "pods", "no pod outside the listed namespaces")
	}
	for _, rule := range grants["team-a"] {
		require.NotContains(t, rule.Resources, "secrets", "inside a listed namespace it acts as its deployer")
		require.NotContains(t, rule.Resources, "pods")
	}
	require.Equal(t, []string{"groups/" + deployer.RecordsGroup}, impersonated(grants[""]), "no user")
	requireDeployersRole(t, render(t, values), "serviceaccounts/deployer-team-a", "serviceaccounts/deployer-team-b")
}

// TestChartNetworkPoliciesLetOnlyActionPodsReachTheActionAPI: the action
// API's pods take the action API's port from action pods (the label each run's pod
// carries) in the namespaces Styrmin deploys to and from the worker, and
// their metrics port from anyone; the evaluation PostgreSQL takes its port
// from this release's Styrmin pods only. Rendered only: the local cluster's
// network plugin (a plain bridge) enforces no NetworkPolicy.
func TestChartNetworkPoliciesLetOnlyActionPodsReachTheActionAPI(t *testing.T) {
	t.Parallel()
	r := render(t, evaluation())
	require.Len(t, all[*networkingv1.NetworkPolicy](r), 2)
	podLabels := func(name string) labels.Set {
		if d := find[*appsv1.Deployment](r, name); d != nil {
			return d.Spec.Template.Labels
		}
		if s := find[*appsv1.StatefulSet](r, name); s != nil {
			return s.Spec.Template.Labels
		}
		return find[*batchv1.Job](r, name).Spec.Template.Labels
	}
	selects := func(s *metav1.LabelSelector, set labels.Set) bool {
		selector, err := metav1.LabelSelectorAsSelector(s)
		require.NoError(t, err)
		return selector.Matches(set)
	}

	api := find[*networkingv1.NetworkPolicy](r, "sm-styrmin-actions")
	require.NotNil(t, api)
	require.True(t, selects(&api.Spec.PodSelector, podLabels("sm-styrmin-actions")))
	for _, other := range []string{"sm-styrmin-web", "sm-styrmin-worker", "sm-styrmin-postgresql"} {
		require.False(t, selects(&api.Spec.PodSelector, podLabels(other)), other)
	}
	require.Equal(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}, api.Spec.PolicyTypes)
	require.Len(t, api.Spec.Ingress, 2)
	toActions, toMetrics := api.Spec.Ingress[0], api.Spec.Ingress[1]
	require.Equal(t, "actions", toActions.Ports[0].Port.String())
	require.Len(t, toActions.Ports, 1)
	actionPod := labels.Set{actions.RunLabel: "42", actions.ManagedByLabel: actions.ManagedBy}
	deployments := labels.Set{deployer.DeploymentsLabel: "true"}
	allowed := func(pod, namespace labels.Set, sameNamespace bool) bool {
		for _, peer := range toActions.From {
			inNamespace := sameNamespace && peer.NamespaceSelector == nil || peer.NamespaceSelector != nil && selects(peer.NamespaceSelector, namespace)
			if inNamespace && selects(peer.PodSelector, pod) {
				return true
			}
		}
		return false
	}
	require.True(t, allowed(actionPod, deployments, false), "an action pod where Styrmin deploys")
	require.True(t, allowed(podLabels("sm-styrmin-worker"), nil, true), "the worker (process runtime)")
	require.False(t, allowed(labels.Set{"app": "shop"}, deployments, false), "a chart's pod beside the action pod")
	require.False(t, allowed(actionPod, labels.Set{"kubernetes.io/metadata.name": "elsewhere"}, false), "a pod labelled as an action run in a namespace Styrmin does not deploy to")
	require.False(t, allowed(podLabels("sm-styrmin-web"), nil, true), "the web pods")
	require.Equal(t, "metrics", toMetrics.Ports[0].Port.String())
	require.Empty(t, toMetrics.From, "Prometheus, from anywhere")

	db := find[*networkingv1.NetworkPolicy](r, "sm-styrmin-postgresql")
	require.NotNil(t, db)
	require.True(t, selects(&db.Spec.PodSelector, podLabels("sm-styrmin-postgresql")))
	require.Len(t, db.Spec.Ingress, 1)
	require.Equal(t, "postgres", db.Spec.Ingress[0].Ports[0].Port.String())
	from := db.Spec.Ingress[0].From
	require.Len(t, from, 1)
	require.Nil(t, from[0].NamespaceSelector, "this namespace only")
	for _, own := range []string{"sm-styrmin-web", "sm-styrmin-worker", "sm-styrmin-actions", "sm-styrmin-migrate"} {
		require.True(t, selects(from[0].PodSelector, podLabels(own)), own)
	}
	other := maps.Clone(podLabels("sm-styrmin-web"))
	other["app.kubernetes.io/instance"] = "another"
	require.False(t, selects(from[0].PodSelector, other), "another release's Styrmin")
	require.False(t, selects(from[0].PodSelector, actionPod), "an action pod")

	require.Len(t, all[*networkingv1.NetworkPolicy](render(t, externalDB())), 1, "no PostgreSQL, no policy for it")
	values := evaluation()
	values["networkPolicy"] = map[string]any{"enabled": false}
	require.Empty(t, all[*networkingv1.NetworkPolicy](render(t, values)))
}
