package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/vcjob/vcjob"
)

// On a real REST client the Applier creates a pod with a plain POST whose
// answer it does not decode (client-go's fake has no REST client, so the
// other tests take the typed path). These check the request it sends and
// how it reads the answers that matter, with and without DiscardAnswers
// on the client's transport.
func TestCreatePodOverREST(t *testing.T) {
	status := func(err *apierrors.StatusError) string {
		s := err.ErrStatus
		s.Kind, s.APIVersion = "Status", "v1"
		b, _ := json.Marshal(s)
		return string(b)
	}
	gr := schema.GroupResource{Resource: "pods"}
	for _, tc := range []struct {
		name        string
		code        int
		body        string
		wantErr     func(error) bool // nil: no error
		wantCreated float64
	}{
		{"created", http.StatusCreated, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"demo-worker-0","namespace":"ns"}}`, nil, 1},
		{"already exists is success", http.StatusConflict, status(apierrors.NewAlreadyExists(gr, "demo-worker-0")), nil, 0},
		{"conflict is an error", http.StatusConflict, status(apierrors.NewConflict(gr, "demo-worker-0", io.EOF)), apierrors.IsConflict, 0},
		{"server error", http.StatusInternalServerError, status(apierrors.NewInternalError(io.EOF)), apierrors.IsInternalError, 0},
	} {
		for _, discard := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/discard=%v", tc.name, discard), func(t *testing.T) {
				type sent struct {
					method, path, fieldManager, contentType string
					pod                                     corev1.Pod
				}
				requests := make(chan sent, 1) // the handler's goroutine hands what it saw to the test's
				var count atomic.Int32
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					s := sent{method: r.Method, path: r.URL.Path, fieldManager: r.URL.Query().Get("fieldManager"),
						contentType: r.Header.Get("Content-Type")}
					_ = json.NewDecoder(r.Body).Decode(&s.pod)
					if count.Add(1) == 1 {
						requests <- s
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(tc.code)
					_, _ = io.WriteString(w, tc.body)
				}))
				defer srv.Close()
				cfg := &rest.Config{Host: srv.URL}
				if discard { // as main.go configures it
					cfg.Wrap(DiscardAnswers)
				}
				kube, err := kubernetes.NewForConfig(cfg)
				if err != nil {
					t.Fatal(err)
				}
				a := &Applier{Kube: kube, Metrics: NewMetrics(), recent: newInFlight(time.Now)}
				pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "demo-worker-0",
					Annotations: map[string]string{vcjob.JobNameKey: "demo"}}}

				err = a.CreatePod(context.Background(), pod)
				switch {
				case tc.wantErr == nil && err != nil:
					t.Fatalf("CreatePod = %v, want success", err)
				case tc.wantErr != nil && !tc.wantErr(err):
					t.Fatalf("CreatePod = %v, want the server's error", err)
				}
				var got sent
				select {
				case got = <-requests:
				default:
					t.Fatal("no request reached the server")
				}
				if n := count.Load(); n != 1 {
					t.Errorf("%d requests sent, want 1", n)
				}
				if got.method != http.MethodPost || got.path != "/api/v1/namespaces/ns/pods" || got.fieldManager != FieldManager {
					t.Errorf("sent %s %s fieldManager=%q, want POST /api/v1/namespaces/ns/pods fieldManager=%q",
						got.method, got.path, got.fieldManager, FieldManager)
				}
				if got.contentType != "application/json" || got.pod.Name != "demo-worker-0" || got.pod.Namespace != "ns" {
					t.Errorf("sent %q body naming %s/%s, want the pod as JSON", got.contentType, got.pod.Namespace, got.pod.Name)
				}
				if n := a.Metrics.Get(MetricPodsCreated); n != tc.wantCreated {
					t.Errorf("pods created = %v, want %v", n, tc.wantCreated)
				}
			})
		}
	}
}
