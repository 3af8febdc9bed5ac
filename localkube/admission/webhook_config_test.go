package admission

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// TestConfigurationFailsClosedOnPodCreationsOnly: the webhook sees every
// pod creation and nothing else, and a failed call refuses the pod, so no
// pod is ever created unsubstituted.
func TestConfigurationFailsClosedOnPodCreationsOnly(t *testing.T) {
	c := Configuration("https://127.0.0.1:4443"+Path, []byte("CA"))
	if len(c.Webhooks) != 1 {
		t.Fatalf("%d webhooks, want 1", len(c.Webhooks))
	}
	w := c.Webhooks[0]
	if *w.FailurePolicy != admissionregistrationv1.Fail || *w.SideEffects != admissionregistrationv1.SideEffectClassNone {
		t.Errorf("failure policy %s, side effects %s: want Fail and None", *w.FailurePolicy, *w.SideEffects)
	}
	if *w.ClientConfig.URL != "https://127.0.0.1:4443/substitute-images" || string(w.ClientConfig.CABundle) != "CA" || w.ClientConfig.Service != nil {
		t.Errorf("client config %+v, want the URL and CA given", w.ClientConfig)
	}
	if len(w.Rules) != 1 || len(w.Rules[0].Operations) != 1 || w.Rules[0].Operations[0] != admissionregistrationv1.Create ||
		len(w.Rules[0].Resources) != 1 || w.Rules[0].Resources[0] != "pods" || w.Rules[0].APIGroups[0] != "" {
		t.Errorf("rules %+v, want pod creations only", w.Rules)
	}
	if w.ObjectSelector != nil || w.NamespaceSelector != nil {
		t.Errorf("selectors %v %v leave some pods out", w.ObjectSelector, w.NamespaceSelector)
	}
}
