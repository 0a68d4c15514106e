package metrics

import (
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/client-go/util/workqueue"
)

func TestExposition(t *testing.T) {
	m := New()
	m.Requests.WithLabelValues("PodFailed", "RestartJob").Inc()
	m.PodsCreated.Add(3)
	m.InformerEvents.WithLabelValues("pod", "add").Inc()
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "jobs-0", MetricsProvider: m.Workqueue()})
	defer q.ShutDown()
	q.Add("a")
	scrape := func(query string) string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics?"+query, nil))
		return rec.Body.String()
	}
	out := scrape("")
	for _, want := range []string{
		`vcjob_controller_requests_total{action="RestartJob",event="PodFailed"} 1`,
		`vcjob_controller_informer_events_total{kind="pod",type="add"} 1`,
		"vcjob_controller_pods_created_total 3",
		"vcjob_controller_pods_deleted_total 0",
		"# TYPE process_cpu_seconds_total counter",
		"# TYPE go_goroutines gauge",
		`workqueue_adds_total{name="jobs-0"} 1`,
		`workqueue_depth{name="jobs-0"} 1`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("exposition lacks %q:\n%s", want, out)
		}
	}
	if out := scrape("name[]=" + PodsCreated); !strings.Contains(out, "vcjob_controller_pods_created_total 3") || strings.Contains(out, "go_goroutines") {
		t.Errorf("a scrape naming one metric answered:\n%s", out)
	}
}
