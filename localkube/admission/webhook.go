package admission

import (
	"encoding/json"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxReviewBytes bounds an AdmissionReview's body: the API server takes
// requests of at most 3 MiB, and a review holds one pod.
const maxReviewBytes = 8 << 20

// Path is the URL path the webhook serves.
const Path = "/substitute-images"

// Handler answers the API server's AdmissionReviews of pod creations with
// PodPatch by rules. A pod that cannot be read, or whose substitutions
// cannot be recorded, is refused with the reason.
func Handler(rules *Rules) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxReviewBytes)).Decode(&review); err != nil {
			http.Error(w, "read the AdmissionReview: "+err.Error(), http.StatusBadRequest)
			return
		}
		if review.Request == nil {
			http.Error(w, "the AdmissionReview has no request", http.StatusBadRequest)
			return
		}
		review.Response = respond(review.Request, rules)
		review.Request = nil
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(&review) //nolint:errcheck // the API server sees a broken answer as a failed call
	})
}

// respond is the answer to one admission request.
func respond(req *admissionv1.AdmissionRequest, rules *Rules) *admissionv1.AdmissionResponse {
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	if req.Kind.Kind != "Pod" || req.Operation != admissionv1.Create {
		return resp // the configuration sends only pod creations; allow anything else unchanged
	}
	patch, err := reviewPatch(req.Object.Raw, rules)
	if err != nil {
		resp.Allowed = false
		resp.Result = &metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonInvalid, Code: http.StatusUnprocessableEntity,
			Message: "the local cluster substitutes images built on the machine for the ones a pod requests, and could not for this pod: " + err.Error()}
		return resp
	}
	if patch != nil {
		jsonPatch := admissionv1.PatchTypeJSONPatch
		resp.Patch, resp.PatchType = patch, &jsonPatch
	}
	return resp
}

// reviewPatch is the encoded PodPatch of a pod's JSON; nil when nothing changes.
func reviewPatch(raw []byte, rules *Rules) ([]byte, error) {
	var pod corev1.Pod
	if err := json.Unmarshal(raw, &pod); err != nil {
		return nil, fmt.Errorf("read the pod: %w", err)
	}
	ops, err := PodPatch(&pod, rules)
	if err != nil || len(ops) == 0 {
		return nil, err
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return nil, fmt.Errorf("encode the patch: %w", err)
	}
	return patch, nil
}
