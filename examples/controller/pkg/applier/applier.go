package applier

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/statemachine"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	"github.com/vcjob/vcjob/examples/controller/pkg/expectations"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

// PodGroupGetter reads one PodGroup from the informer's store; found is
// false when there is none of that name.
type PodGroupGetter func(namespace, name string) (pg *podgroup.PodGroup, found bool, err error)

// Applier implements statemachine.Applier with client-go: the typed
// clientset for pods, claims and the plugins' objects, the typed Volcano
// clients for Jobs and PodGroups, and the PodGroup informer's store for
// reads. Its only state is which of its own writes the informers have not
// shown yet (expectations, safe for concurrent use), so one Applier serves
// every worker. Its methods are in podgroups.go, objects.go, pods.go and
// status.go.
type Applier struct {
	Kube    kubernetes.Interface
	Volcano clients.Volcano
	// PodGroups reads PodGroups from the informer's lister.
	PodGroups PodGroupGetter
	// StatusWritten, when set, is handed the job as the API server returned
	// it after each status write (with the write's context); the
	// controller caches it, so the next step does not decide on (and
	// write with) the stale resourceVersion.
	StatusWritten func(context.Context, *vcjob.Job)
	// DeleteFailed, when set, is told of each pod whose delete failed
	// (with the delete's context): a DeleteRetrier's Failed retries it on
	// its own with backoff.
	DeleteFailed func(context.Context, *corev1.Pod, error)
	// Metrics receives the writes' counters (metrics.New).
	Metrics *metrics.Metrics
	// Expectations are the pods and PodGroups created and deleted that
	// the informers have not shown yet.
	Expectations *expectations.Expectations
	// Satisfied, when set, is told of a job none of whose created pods is
	// expected any more.
	Satisfied func(job string)
}

var _ statemachine.Applier = (*Applier)(nil)

// callTimeout bounds each API call.
const callTimeout = 30 * time.Second

// CallContext is the context of one API call made for a step: parent's
// values without its cancellation, and callTimeout. A call under way when
// the controller is asked to stop is let finish, so the step it belongs
// to either happened or failed as a whole as far as the API server knows.
func CallContext(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(parent), callTimeout)
}
