package clients

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/vcjob/vcjob"
)

// The REST clients speak the API server's paths, query parameters and
// JSON for vcjob's types: list with options, watch, status writes on the
// subresource, PodGroup patches and Command deletes.
func TestVolcanoClientRequests(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.String())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodGet && r.URL.Query().Get("watch") == "true":
			_, _ = io.WriteString(w, `{"type":"ADDED","object":{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"w","namespace":"ns","resourceVersion":"8"}}}`+"\n")
		case r.Method == http.MethodGet:
			_, _ = io.WriteString(w, `{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"JobList","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a","namespace":"ns"},"spec":{"minAvailable":3,"unknownField":1},"status":{"state":{"phase":"Running"}}}]}`)
		case r.Method == http.MethodPut:
			var job vcjob.Job
			if err := json.Unmarshal(body, &job); err != nil || job.Status.State.Phase != vcjob.Completed {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			job.ResourceVersion = "9"
			_ = json.NewEncoder(w).Encode(&job)
		case r.Method == http.MethodPatch:
			if r.Header.Get("Content-Type") != "application/json-patch+json" {
				w.WriteHeader(http.StatusUnsupportedMediaType)
				return
			}
			_, _ = io.WriteString(w, `{"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroup","metadata":{"name":"pg","namespace":"ns"},"spec":{"minMember":1}}`)
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"NotFound","code":404,"details":{"name":"c","group":"bus.volcano.sh","kind":"commands"}}`)
		}
	}))
	defer srv.Close()
	vc, err := NewVolcanoForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	list, err := vc.Jobs("ns").List(ctx, metav1.ListOptions{LabelSelector: "a=b", ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Spec.MinAvailable != 3 || list.Items[0].Status.State.Phase != vcjob.Running || list.ResourceVersion != "7" {
		t.Errorf("list = %+v", list)
	}
	w, err := vc.Jobs("").Watch(ctx, metav1.ListOptions{ResourceVersion: "7"})
	if err != nil {
		t.Fatal(err)
	}
	ev := <-w.ResultChan()
	w.Stop()
	if j, ok := ev.Object.(*vcjob.Job); !ok || j.Name != "w" || j.ResourceVersion != "8" {
		t.Errorf("watch event %v %#v", ev.Type, ev.Object)
	}
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", ResourceVersion: "7"}}
	job.Status.State.Phase = vcjob.Completed
	out, err := vc.Jobs("ns").UpdateStatus(ctx, job, metav1.UpdateOptions{FieldManager: FieldManager})
	if err != nil || out.ResourceVersion != "9" {
		t.Errorf("UpdateStatus = %v, %v", out, err)
	}
	pg, err := vc.PodGroups("ns").Patch(ctx, "pg", "application/json-patch+json", []byte(`[]`), metav1.PatchOptions{})
	if err != nil || pg.Spec.MinMember != 1 {
		t.Errorf("Patch = %+v, %v", pg, err)
	}
	if err := vc.Commands("ns").Delete(ctx, "c", metav1.DeleteOptions{}); err == nil {
		t.Error("delete of a missing command: nil error")
	}

	want := []string{
		"GET /apis/batch.volcano.sh/v1alpha1/namespaces/ns/jobs?labelSelector=a%3Db&resourceVersion=0",
		"GET /apis/batch.volcano.sh/v1alpha1/jobs?resourceVersion=7&watch=true",
		"PUT /apis/batch.volcano.sh/v1alpha1/namespaces/ns/jobs/a/status?fieldManager=vcjob-controller",
		"PATCH /apis/scheduling.volcano.sh/v1beta1/namespaces/ns/podgroups/pg",
		"DELETE /apis/bus.volcano.sh/v1alpha1/namespaces/ns/commands/c",
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != len(want) {
		t.Fatalf("requests %q, want %q", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Errorf("request %d = %q, want %q", i, seen[i], want[i])
		}
	}
}
