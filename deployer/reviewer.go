package deployer

import (
	"context"
	"fmt"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/styrmin/styrmin/kube"
)

// A namespace's reviewer is the identity a process that works no task (the
// web pods) reads Helm's records and runs an upgrade review's dry run as:
// the ServiceAccount ReviewerAccount, holding the deployer's role in its
// namespace, while the policy ReviewersPolicy refuses every request of any
// reviewer that is not a dry run. Whoever acts as it reads what the deployer
// reads and changes nothing. A ServiceAccount, not a user, so that an
// identity may impersonate reviewers by name in every namespace and no user
// at all (RBAC names users only exactly).
const (
	// ReviewerAccount is the name of each namespace's reviewer.
	ReviewerAccount = "styrmin-reviewer"
	// ReviewersPolicy names the ValidatingAdmissionPolicy (and its binding)
	// that lets reviewers only dry-run.
	ReviewersPolicy = "styrmin-reviewers-dry-run"
)

// Reviewer is the user name of namespace's reviewer.
func Reviewer(namespace string) string {
	return serviceAccountUser(namespace, ReviewerAccount)
}

// ReviewerImpersonation is the impersonation that acts as namespace's reviewer.
func ReviewerImpersonation(namespace string) rest.ImpersonationConfig {
	return rest.ImpersonationConfig{UserName: Reviewer(namespace)}
}

// Reviewing is a client that acts as namespace's reviewer: it reads what
// the namespace's deployer reads (a pod's log included) and changes nothing.
func (c *Client) Reviewing(namespace string) (kubernetes.Interface, error) {
	return c.actingAs(ReviewerImpersonation(namespace))
}

// ensureReviewer gives namespace its reviewer, with no token mounted in any
// pod, bound to the namespace's admin role; both are deployer objects
// (kube.RoleDeployer), which do not keep a namespace from being deleted.
func (c *Client) ensureReviewer(ctx context.Context, namespace string) error {
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: ReviewerAccount, Namespace: namespace, Labels: managed(kube.RoleDeployer)},
		AutomountServiceAccountToken: ptr.To(false)}
	_, err := c.clientset.CoreV1().ServiceAccounts(namespace).Create(ctx, account, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("deployer: reviewer of namespace %s: %w", namespace, err)
	}
	return c.applyRoleBinding(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ReviewerAccount, Namespace: namespace, Labels: managed(kube.RoleDeployer)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: namespaceRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ReviewerAccount, Namespace: namespace}},
	})
}

// ensureReviewersPolicy puts in place the policy that refuses any reviewer
// every request that is not a dry run.
func (c *Client) ensureReviewersPolicy(ctx context.Context) error {
	policy := reviewersPolicy()
	return c.applyPolicy(ctx, policy, denyBinding(policy), func(have *admissionv1.ValidatingAdmissionPolicy) {
		have.Spec, have.Labels = policy.Spec, policy.Labels
	})
}

// reviewersPolicy is the policy that lets reviewers only dry-run: every
// create, update, delete and connect (exec, attach, port forwarding, proxy)
// of any resource and subresource, tokens included.
func reviewersPolicy() *admissionv1.ValidatingAdmissionPolicy {
	fail := admissionv1.Fail
	policy := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: ReviewersPolicy, Labels: managed("reviewers")},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionv1.MatchResources{
				ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect},
					Rule:       admissionv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}},
				}}},
			},
			MatchConditions: []admissionv1.MatchCondition{{
				Name:       "reviewer",
				Expression: fmt.Sprintf("request.userInfo.username.startsWith('system:serviceaccount:') && request.userInfo.username.endsWith(':%s')", ReviewerAccount),
			}},
			Validations: []admissionv1.Validation{{
				Expression: "has(request.dryRun) && request.dryRun == true",
				Message:    "Styrmin's reviewers only dry-run: the identity the web pods act as changes nothing.",
				Reason:     ptr.To(metav1.StatusReasonForbidden),
			}},
		},
	}
	return policy
}

// awaitReviewerGuarded returns once the API server refuses namespace's
// reviewer a change and lets it dry-run one: the policy may have just been
// written. A probe that got through while it was not yet in force is
// deleted (as the deployer: Styrmin's own identity has no right in the
// namespace). It fails if that does not happen in admissionDelay.
func (c *Client) awaitReviewerGuarded(ctx context.Context, namespace string) error {
	reviewer, err := c.actingAs(ReviewerImpersonation(namespace))
	if err != nil {
		return err
	}
	deployer, err := c.actingAs(c.Impersonation(namespace))
	if err != nil {
		return err
	}
	probe := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "styrmin-reviewer-probe"}}
	configMaps := reviewer.CoreV1().ConfigMaps(namespace)
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, admissionDelay, true, func(ctx context.Context) (bool, error) {
		if _, err := configMaps.Create(ctx, probe, dryRun); err != nil {
			return false, nil // its binding is not in force yet
		}
		_, err := configMaps.Create(ctx, probe, metav1.CreateOptions{})
		if err == nil || apierrors.IsAlreadyExists(err) {
			_ = deployer.CoreV1().ConfigMaps(namespace).Delete(ctx, probe.Name, metav1.DeleteOptions{})
			return false, nil
		}
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), ReviewersPolicy), nil
	})
	if err != nil {
		return fmt.Errorf("deployer: the API server does not apply the policy %s in namespace %s (it needs ValidatingAdmissionPolicy, Kubernetes 1.30 or later): %w", ReviewersPolicy, namespace, err)
	}
	return nil
}
