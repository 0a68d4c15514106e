package applier_test

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/manifest"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/statemachine"

	"github.com/vcjob/vcjob/examples/controller/pkg/applier"
	vcfake "github.com/vcjob/vcjob/examples/controller/pkg/clients/fake"
	"github.com/vcjob/vcjob/examples/controller/pkg/expectations"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

const exampleJob = `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: demo, namespace: ns, uid: job-uid}
spec:
  minAvailable: 1
  tasks:
  - name: worker
    replicas: 1
    template: {spec: {containers: [{name: c, image: busybox}]}}
`

// An Applier on fake clients (a controller passes clients.NewSet's) and
// the PodGroup informer's store. The library's step calls it through
// statemachine.Applied; here it is called by hand.
func Example() {
	ctx := context.Background()
	kube, vc := fake.NewClientset(), vcfake.NewVolcano()
	podGroups := cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil) // the PodGroup informer's store
	a := &applier.Applier{Kube: kube, Volcano: vc, Metrics: metrics.New(),
		Expectations: expectations.New(clock.RealClock{}),
		PodGroups: func(namespace, name string) (*podgroup.PodGroup, bool, error) {
			obj, ok, err := podGroups.GetByKey(namespace + "/" + name)
			if err != nil || !ok {
				return nil, false, err
			}
			return obj.(*podgroup.PodGroup), true, nil
		}}

	job, err := manifest.DecodeJob([]byte(exampleJob))
	if err != nil {
		panic(err)
	}
	vcjob.SetDefaults(job)
	desired := podgroup.Desired(job, nil)
	if err := a.ApplyPodGroup(ctx, &desired); err != nil {
		panic(err)
	}
	if err := a.CreatePod(ctx, statemachine.RenderPod(job, &job.Spec.Tasks[0], 0)); err != nil {
		panic(err)
	}
	for _, act := range append(vc.Actions(), kube.Actions()...) {
		fmt.Println(act.GetVerb(), act.GetResource().Resource)
	}
	// A second create of the pod is not sent: the informer has not shown
	// the first yet (the expectations say so).
	_ = a.CreatePod(ctx, statemachine.RenderPod(job, &job.Spec.Tasks[0], 0))
	fmt.Println(len(kube.Actions()), "pod create sent")
	// Output:
	// create podgroups
	// create pods
	// 1 pod create sent
}
