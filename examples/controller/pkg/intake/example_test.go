package intake_test

import (
	"context"
	"fmt"

	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/vcjob/vcjob"
	jobcache "github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/manifest"
	"github.com/vcjob/vcjob/request"

	vcfake "github.com/vcjob/vcjob/examples/controller/pkg/clients/fake"
	"github.com/vcjob/vcjob/examples/controller/pkg/expectations"
	"github.com/vcjob/vcjob/examples/controller/pkg/intake"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

const exampleJob = `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: demo, namespace: ns, uid: job-uid, resourceVersion: "1"}
spec:
  minAvailable: 1
  tasks:
  - name: worker
    replicas: 1
    template: {spec: {containers: [{name: c, image: busybox}]}}
`

// Handlers feeding a cache; a controller registers them with its
// informers (here the job informer's add is called by hand) and queues
// what Enqueue gets on the job's worker.
func Example() {
	jobs := jobcache.New()
	h := intake.New(context.Background(), intake.Config{Jobs: jobs,
		Expectations: expectations.New(clock.RealClock{}), Metrics: metrics.New(),
		Volcano: vcfake.NewVolcano(), CommandStore: cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil),
		Enqueue: func(r request.Request) { fmt.Println("queued", r.Namespace+"/"+r.JobName, r.Event) },
	})
	job, err := manifest.DecodeJob([]byte(exampleJob))
	if err != nil {
		panic(err)
	}
	vcjob.SetDefaults(job)
	h.Jobs().OnAdd(job, false) // what jobs.Informer().AddEventHandler(h.Jobs()) delivers
	fmt.Println("cached:", jobs.Has("ns/demo"))
	// Output:
	// queued ns/demo OutOfSync
	// cached: true
}
