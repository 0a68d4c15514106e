package metrics

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestRequestVerbResource(t *testing.T) {
	for _, tc := range []struct {
		method, url    string
		verb, resource string
	}{
		{"GET", "/api/v1/namespaces/ns/pods/p1", "get", "pods"},
		{"GET", "/api/v1/pods?labelSelector=volcano.sh%2Fjob-name", "list", "pods"},
		{"GET", "/api/v1/pods?watch=true&resourceVersion=5", "watch", "pods"},
		{"POST", "/api/v1/namespaces/ns/pods", "create", "pods"},
		{"PATCH", "/api/v1/namespaces/ns/pods/p1", "patch", "pods"},
		{"DELETE", "/api/v1/namespaces/ns/pods/p1", "delete", "pods"},
		{"DELETE", "/api/v1/namespaces/ns/pods", "deletecollection", "pods"},
		{"PUT", "/apis/batch.volcano.sh/v1alpha1/namespaces/ns/jobs/j/status", "update", "jobs/status"},
		{"GET", "/apis/batch.volcano.sh/v1alpha1/jobs?watch=1", "watch", "jobs"},
		{"DELETE", "/apis/scheduling.volcano.sh/v1beta1/namespaces/ns/podgroups/pg", "delete", "podgroups"},
		{"GET", "/apis/scheduling.k8s.io/v1/priorityclasses/high", "get", "priorityclasses"},
		{"PUT", "/apis/coordination.k8s.io/v1/namespaces/default/leases/vcjob-controller", "update", "leases"},
		{"GET", "/api/v1/namespaces/ns", "get", "namespaces"},
		{"GET", "/version", "get", "other"},
		{"POST", "/apis", "post", "other"},
		{"GET", "/api/v1/pods?resourceVersion=5&watch=false", "list", "pods"},
	} {
		verb, resource := RequestVerbResource(httptest.NewRequest(tc.method, tc.url, nil))
		if verb != tc.verb || resource != tc.resource {
			t.Errorf("%s %s: got %s %s, want %s %s", tc.method, tc.url, verb, resource, tc.verb, tc.resource)
		}
	}
}

func TestCountRequests(t *testing.T) {
	m := New()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	client := &http.Client{Transport: m.CountRequests(http.DefaultTransport)}
	for _, method := range []string{"DELETE", "DELETE", "GET"} {
		req, _ := http.NewRequest(method, srv.URL+"/apis/scheduling.volcano.sh/v1beta1/namespaces/ns/podgroups/pg", nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if got := testutil.ToFloat64(m.APIRequests.WithLabelValues("delete", "podgroups", "404")); got != 2 {
		t.Errorf("deletes answered 404: %v, want 2", got)
	}
	if got := testutil.ToFloat64(m.APIRequests.WithLabelValues("get", "podgroups", "200")); got != 1 {
		t.Errorf("gets: %v, want 1", got)
	}
}
