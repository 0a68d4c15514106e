package events

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	kuberecord "k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	vcrecord "github.com/vcjob/vcjob/record"

	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

// Component is the source Volcano's controllers record their Events
// under (the job, CronJob and garbage collector controllers of
// vc-controller-manager); kubectl describe shows it in the From column.
const Component = "vc-controller-manager"

// NewRecorder starts a broadcaster that posts Events to the API server
// through kube, and returns a recorder on it for objects of scheme's
// kinds (the involved object's reference is built from it), and stop,
// which shuts the broadcaster down. logLevel > 0 also logs every Event at
// that klog verbosity (Volcano logs each one at info). The broadcaster
// logs with ctx's logger; only stop ends it, not ctx, so the Events of
// the last steps are still posted.
func NewRecorder(ctx context.Context, kube kubernetes.Interface, scheme *runtime.Scheme, logLevel int) (recorder kuberecord.EventRecorder, stop func()) {
	b := kuberecord.NewBroadcaster(kuberecord.WithContext(context.WithoutCancel(ctx)))
	if logLevel > 0 {
		b.StartStructuredLogging(klog.Level(logLevel))
	}
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")})
	return b.NewRecorder(scheme, corev1.EventSource{Component: Component}), b.Shutdown
}

// Recorder hands the library's Events to a client-go recorder on behalf
// of one controller, counting them (vcjob_controller_events_total). A nil
// *Recorder records nothing.
type Recorder struct {
	recorder   kuberecord.EventRecorder
	counts     *prometheus.CounterVec
	controller string
}

// For is a Recorder of controller ("job", "cronjob") on r, counted in m
// (nil: not counted); nil when r is nil.
func For(r kuberecord.EventRecorder, m *metrics.Metrics, controller string) *Recorder {
	if r == nil {
		return nil
	}
	out := &Recorder{recorder: r, controller: controller}
	if m != nil {
		out.counts = m.Events
	}
	return out
}

// Record hands each of evs to the recorder on obj (the object the
// decision is about: the job of a step, the cronjob of a sync), in order.
func (r *Recorder) Record(obj runtime.Object, evs []vcrecord.Event) {
	if r == nil || obj == nil {
		return
	}
	for _, e := range evs {
		r.recorder.Event(obj, e.Type, e.Reason, e.Message)
		if r.counts != nil {
			r.counts.WithLabelValues(r.controller, e.Type, e.Reason).Inc()
		}
	}
}
