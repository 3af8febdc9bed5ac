package admission

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// review posts an AdmissionReview of pod's creation to the handler and
// returns the HTTP status and the review it answers.
func review(t *testing.T, pod *corev1.Pod) (int, admissionv1.AdmissionReview) {
	t.Helper()
	raw, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: types.UID("uid-1"), Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: raw},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	Handler(mustRules(t)).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, Path, bytes.NewReader(body)))
	var out admissionv1.AdmissionReview
	if rec.Code == http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("answer is not an AdmissionReview: %v", err)
		}
	}
	return rec.Code, out
}

func TestHandlerAnswersWithTheJSONPatch(t *testing.T) {
	pod := podOf("postgres:16.4")
	code, got := review(t, pod)
	if code != http.StatusOK || got.Response == nil {
		t.Fatalf("status %d, response %+v", code, got.Response)
	}
	r := got.Response
	if r.UID != "uid-1" || !r.Allowed || r.PatchType == nil || *r.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Fatalf("response %+v, want the request's UID, allowed, with a JSON Patch", r)
	}
	if got.APIVersion != "admission.k8s.io/v1" || got.Kind != "AdmissionReview" || got.Request != nil {
		t.Errorf("answer %s %s with request %v, want an admission.k8s.io/v1 AdmissionReview without the request", got.APIVersion, got.Kind, got.Request)
	}
	patch, err := jsonpatch.DecodePatch(r.Patch)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(pod) //nolint:errcheck // a pod encodes
	out, err := patch.Apply(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"image":"styrmin.local/postgres:15"`) {
		t.Errorf("patched pod %s", out)
	}
}

func TestHandlerAllowsAPodWithNothingToChangeUnpatched(t *testing.T) {
	_, got := review(t, podOf("styrmin.local/hello:1"))
	if got.Response == nil || !got.Response.Allowed || got.Response.Patch != nil {
		t.Errorf("response %+v, want allowed without patch", got.Response)
	}
}

func TestHandlerRefusesAPodItCannotRecord(t *testing.T) {
	images := make([]string, 3000)
	for i := range images {
		images[i] = "redis"
	}
	_, got := review(t, podOf(images...))
	if got.Response == nil || got.Response.Allowed || got.Response.Result == nil || !strings.Contains(got.Response.Result.Message, "could not for this pod") {
		t.Errorf("response %+v, want refused with the reason", got.Response)
	}
}

func TestHandlerRefusesWhatIsNotAReview(t *testing.T) {
	for _, body := range []string{"", "{", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`} {
		rec := httptest.NewRecorder()
		Handler(mustRules(t)).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, Path, strings.NewReader(body)))
		if rec.Code != http.StatusBadRequest {
			t.Errorf("body %q: status %d, want 400", body, rec.Code)
		}
	}
}
