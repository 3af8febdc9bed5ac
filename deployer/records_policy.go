package deployer

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"strings"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
)

// RecordsPolicy names the ValidatingAdmissionPolicy (and its binding) that
// keeps Helm's release records Styrmin's alone.
const RecordsPolicy = "styrmin-helm-records"

// helmRecordType is the Secret type of Helm's release records.
const helmRecordType = "helm.sh/release.v1"

// writersAnnotation lists, as a JSON array, the users the records policy
// lets write Helm records besides RecordsGroup: every Styrmin process that
// put it in place (one cluster may have several Styrmins, and during an
// upgrade of Styrmin older workers write records as themselves).
const writersAnnotation = "styrmin.io/helm-record-writers"

// ensureRecordsPolicy puts in place, once per Client (with the reviewers'
// policy and ListerRole), the policy that
// refuses a Helm release record (a Secret of Helm's type, or labelled
// owner=helm) created or changed by anyone but a Styrmin (in RecordsGroup,
// or a user of the policy's writers, to which each adds its own) in a namespace
// labelled DeploymentsLabel: a chart, its hooks and its pods cannot forge the
// history Styrmin's next upgrade reads.
func (c *Client) ensureRecordsPolicy(ctx context.Context) error {
	c.policyMu.Lock()
	defer c.policyMu.Unlock()
	if c.policy {
		return nil
	}
	self, err := c.whoAmI(ctx)
	if err != nil {
		return err
	}
	policy, binding := recordsPolicy([]string{self})
	err = c.applyPolicy(ctx, policy, binding, func(have *admissionv1.ValidatingAdmissionPolicy) {
		var writers []string
		_ = json.Unmarshal([]byte(have.Annotations[writersAnnotation]), &writers) // a mangled list keeps only self
		if !slices.Contains(writers, self) {
			writers = append(writers, self)
		}
		want, _ := recordsPolicy(writers)
		have.Spec, have.Labels = want.Spec, want.Labels
		have.Annotations = want.Annotations
	})
	if err != nil {
		return err
	}
	if err := c.ensureReviewersPolicy(ctx); err != nil {
		return err
	}
	if c.lister, err = c.ensureListerRole(ctx); err != nil {
		return err
	}
	c.policy = true
	return nil
}

// recordsPolicy is the records policy, and its binding, that lets only
// writers write Helm records.
func recordsPolicy(writers []string) (*admissionv1.ValidatingAdmissionPolicy, *admissionv1.ValidatingAdmissionPolicyBinding) {
	list, _ := json.Marshal(writers) // a JSON array of strings is a CEL list of strings
	fail := admissionv1.Fail
	deployments := &metav1.LabelSelector{MatchLabels: map[string]string{DeploymentsLabel: "true"}}
	policy := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: RecordsPolicy, Labels: managed("helm-records"), Annotations: map[string]string{writersAnnotation: string(list)}},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionv1.MatchResources{
				NamespaceSelector: deployments,
				ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
					Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"secrets"}},
				}}},
			},
			MatchConditions: []admissionv1.MatchCondition{{
				Name:       "not-styrmin",
				Expression: fmt.Sprintf("!(request.userInfo.username in %s) && !(has(request.userInfo.groups) && %q in request.userInfo.groups)", list, RecordsGroup),
			}},
			Validations: []admissionv1.Validation{{
				Expression: fmt.Sprintf("!(object.type == %q || (has(object.metadata.labels) && 'owner' in object.metadata.labels && object.metadata.labels['owner'] == 'helm'))", helmRecordType),
				Message:    "Styrmin keeps the Helm release records of this namespace: only Styrmin writes a Secret of type " + helmRecordType + " or labelled owner=helm here.",
				Reason:     ptr.To(metav1.StatusReasonForbidden),
			}},
		},
	}
	return policy, denyBinding(policy)
}

// denyBinding is the binding that makes policy deny, wherever it matches,
// what it refuses.
func denyBinding(policy *admissionv1.ValidatingAdmissionPolicy) *admissionv1.ValidatingAdmissionPolicyBinding {
	return &admissionv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: policy.Name, Labels: policy.Labels},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policy.Name,
			ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
		},
	}
}

// applyPolicy puts policy and its binding in place, setting (with set) an
// existing policy of its name to it.
func (c *Client) applyPolicy(ctx context.Context, policy *admissionv1.ValidatingAdmissionPolicy, binding *admissionv1.ValidatingAdmissionPolicyBinding, set func(have *admissionv1.ValidatingAdmissionPolicy)) error {
	admission := c.clientset.AdmissionregistrationV1()
	if err := apply(ctx, admission.ValidatingAdmissionPolicies(), policy, set); err != nil {
		return fmt.Errorf("deployer: ValidatingAdmissionPolicy %s: %w", policy.Name, err)
	}
	err := apply(ctx, admission.ValidatingAdmissionPolicyBindings(), binding, func(have *admissionv1.ValidatingAdmissionPolicyBinding) {
		have.Spec, have.Labels = binding.Spec, binding.Labels
	})
	if err != nil {
		return fmt.Errorf("deployer: ValidatingAdmissionPolicyBinding %s: %w", binding.Name, err)
	}
	return nil
}

// dryRun makes a create that changes nothing but is authorized and admitted.
var dryRun = metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}

// admissionDelay bounds how long the API server may take to apply a policy
// or a namespace's labels it was just given (its admission reads them from
// caches that follow the changes).
const admissionDelay = 30 * time.Second

// awaitRecordsGuarded returns once the API server refuses namespace's
// deployer a Helm record there and lets Styrmin (the deployer in
// RecordsGroup) write one (dry runs): the policy, or the namespace's label,
// may have just been written. It fails if that does not happen in
// admissionDelay, so a cluster that does not enforce the policy is noticed.
func (c *Client) awaitRecordsGuarded(ctx context.Context, namespace string) error {
	forged := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{GenerateName: "styrmin-probe-", Labels: map[string]string{"owner": "helm"}}, Type: helmRecordType}
	deployer, err := c.actingAs(c.Impersonation(namespace))
	if err != nil {
		return err
	}
	styrmin, err := c.actingAs(c.RecordsImpersonation(namespace))
	if err != nil {
		return err
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, admissionDelay, true, func(ctx context.Context) (bool, error) {
		_, err := deployer.CoreV1().Secrets(namespace).Create(ctx, forged, dryRun)
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), RecordsPolicy) {
			return false, nil
		}
		_, err = styrmin.CoreV1().Secrets(namespace).Create(ctx, forged, dryRun)
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("deployer: the API server does not apply the policy %s in namespace %s (it needs ValidatingAdmissionPolicy, Kubernetes 1.30 or later): %w", RecordsPolicy, namespace, err)
	}
	return nil
}
