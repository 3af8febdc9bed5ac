package admission

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// ConfigurationName is the name of the MutatingWebhookConfiguration that
// registers the webhook.
const ConfigurationName = "styrmin-image-substitutions"

// timeoutSeconds bounds each call: the webhook answers from memory, on
// loopback.
const timeoutSeconds = 5

// Configuration registers the webhook served at url (https, on loopback),
// whose serving certificate caBundle (PEM) verifies, for pod creations only.
// A failed call refuses the pod: no pod runs unsubstituted.
func Configuration(url string, caBundle []byte) *admissionregistrationv1.MutatingWebhookConfiguration {
	failClosed := admissionregistrationv1.Fail
	noSideEffects := admissionregistrationv1.SideEffectClassNone
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: ConfigurationName},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "images.substitute.styrmin.io",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To(url), CABundle: caBundle},
			AdmissionReviewVersions: []string{"v1"},
			FailurePolicy:           &failClosed,
			SideEffects:             &noSideEffects,
			TimeoutSeconds:          ptr.To[int32](timeoutSeconds),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{
					APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"},
					Scope: ptr.To(admissionregistrationv1.NamespacedScope),
				},
			}},
		}},
	}
}
