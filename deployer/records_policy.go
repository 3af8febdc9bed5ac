package deployer

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RecordsPolicy names the ValidatingAdmissionPolicy (and its binding) that
// keeps Helm's release records Styrmin's alone.
const RecordsPolicy = "styrmin-helm-records"

// helmRecordType is the Secret type of Helm's release records.
const helmRecordType = "helm.sh/release.v1"

// ensureRecordsPolicy puts in place, once per Client, the policy that
// refuses a Helm release record (a Secret of Helm's type, or labelled
// owner=helm) created or changed by anyone but Styrmin in a namespace
// labelled DeploymentsLabel: a chart, its hooks and its pods cannot forge the
// history Styrmin's next upgrade reads.
func (c *Client) ensureRecordsPolicy(ctx context.Context) error {
	c.policyMu.Lock()
	defer c.policyMu.Unlock()
	if c.policy {
		return nil
	}
	self, err := c.self(ctx)
	if err != nil {
		return err
	}
	policy, binding := recordsPolicy(self)
	policies := c.clientset.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	have, err := policies.Get(ctx, RecordsPolicy, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = policies.Create(ctx, policy, metav1.CreateOptions{})
	case err == nil:
		have.Spec, have.Labels = policy.Spec, policy.Labels
		_, err = policies.Update(ctx, have, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("deployer: ValidatingAdmissionPolicy %s: %w", RecordsPolicy, err)
	}
	bindings := c.clientset.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
	haveBinding, err := bindings.Get(ctx, RecordsPolicy, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = bindings.Create(ctx, binding, metav1.CreateOptions{})
	case err == nil:
		haveBinding.Spec, haveBinding.Labels = binding.Spec, binding.Labels
		_, err = bindings.Update(ctx, haveBinding, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("deployer: ValidatingAdmissionPolicyBinding %s: %w", RecordsPolicy, err)
	}
	c.policy = true
	return nil
}

// recordsPolicy is the records policy, and its binding, of a Styrmin whose
// requests authenticate as user self.
func recordsPolicy(self string) (*admissionv1.ValidatingAdmissionPolicy, *admissionv1.ValidatingAdmissionPolicyBinding) {
	fail := admissionv1.Fail
	deployments := &metav1.LabelSelector{MatchLabels: map[string]string{DeploymentsLabel: "true"}}
	policy := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: RecordsPolicy, Labels: managed("helm-records")},
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
				Expression: fmt.Sprintf("request.userInfo.username != %q", self),
			}},
			Validations: []admissionv1.Validation{{
				Expression: fmt.Sprintf("!(object.type == %q || (has(object.metadata.labels) && 'owner' in object.metadata.labels && object.metadata.labels['owner'] == 'helm'))", helmRecordType),
				Message:    "Styrmin keeps the Helm release records of this namespace: only Styrmin writes a Secret of type " + helmRecordType + " or labelled owner=helm here.",
				Reason:     ptr(metav1.StatusReasonForbidden),
			}},
		},
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: RecordsPolicy, Labels: managed("helm-records")},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        RecordsPolicy,
			ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
		},
	}
	return policy, binding
}

// ptr is a pointer to v.
func ptr[T any](v T) *T { return &v }
