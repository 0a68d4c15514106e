package admission

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

// The paths the webhooks are served at (Volcano's own).
const (
	MutateJobsPath       = "/jobs/mutate"
	ValidateJobsPath     = "/jobs/validate"
	ValidateCronJobsPath = "/cronjobs/validate"
)

// Review answers one admission request.
type Review func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse

// maxReviewBytes bounds a review's body: the API server sends at most
// its own request limit (3 MiB) twice (object and old object).
const maxReviewBytes = 8 << 20

// Handler serves review at path: it decodes the AdmissionReview, answers
// it with the request's UID, and counts the answer.
func Handler(path string, review Review, m *metrics.Metrics) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST an admission.k8s.io/v1 AdmissionReview", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxReviewBytes))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var in admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &in); err != nil || in.Request == nil {
			http.Error(w, fmt.Sprintf("not an AdmissionReview with a request: %v", err), http.StatusBadRequest)
			return
		}
		resp := review(in.Request)
		resp.UID = in.Request.UID
		m.AdmissionReviews.WithLabelValues(path, string(in.Request.Operation), strconv.FormatBool(resp.Allowed)).Inc()
		logger := klog.FromContext(r.Context())
		if !resp.Allowed {
			logger.V(2).Info("Admission refused", "path", path, "operation", in.Request.Operation,
				"object", klog.KRef(in.Request.Namespace, in.Request.Name), "reason", resp.Result.Message)
		}
		out := admissionv1.AdmissionReview{TypeMeta: in.TypeMeta, Response: resp}
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(&out); err != nil {
			logger.Error(err, "Cannot write admission response", "path", path)
		}
	})
}

// allowed is an answer that admits the request.
func allowed() *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: true}
}

// refused is an answer that refuses the request with the library's
// message for errs: 422 Invalid, as the API server's own validation
// answers.
func refused(errs field.ErrorList) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Result: &metav1.Status{
		Status: metav1.StatusFailure, Reason: metav1.StatusReasonInvalid,
		Code: http.StatusUnprocessableEntity, Message: errs.ToAggregate().Error(),
	}}
}

// failed is an answer to a request that could not be judged (an object
// that does not decode).
func failed(err error) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Result: &metav1.Status{
		Status: metav1.StatusFailure, Reason: metav1.StatusReasonBadRequest,
		Code: http.StatusBadRequest, Message: err.Error(),
	}}
}
