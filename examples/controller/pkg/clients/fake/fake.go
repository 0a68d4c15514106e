package fake

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/gentype"
	k8stesting "k8s.io/client-go/testing"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

// Volcano is clients.Volcano on client-go's object tracker, for tests: the
// same reactors and tracker as a generated fake clientset.
type Volcano struct {
	k8stesting.Fake
	tracker k8stesting.ObjectTracker
}

var _ clients.Volcano = (*Volcano)(nil)

// NewVolcano returns a Volcano holding objs.
func NewVolcano(objs ...runtime.Object) *Volcano {
	scheme, err := clients.NewScheme()
	if err != nil {
		panic(err) // the scheme's registrations are static
	}
	f := &Volcano{tracker: k8stesting.NewObjectTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder())}
	for _, o := range objs {
		if err := f.tracker.Add(o); err != nil {
			panic(err)
		}
	}
	f.AddReactor("*", "*", k8stesting.ObjectReaction(f.tracker))
	f.AddWatchReactor("*", func(a k8stesting.Action) (bool, watch.Interface, error) {
		w, err := f.tracker.Watch(a.GetResource(), a.GetNamespace())
		return true, w, err
	})
	return f
}

// Tracker is the fake's object store.
func (f *Volcano) Tracker() k8stesting.ObjectTracker { return f.tracker }

// Jobs implements clients.Volcano.
func (f *Volcano) Jobs(namespace string) clients.Resource[*vcjob.Job, *vcjob.JobList] {
	return gentype.NewFakeClientWithList[*vcjob.Job, *vcjob.JobList](&f.Fake, namespace, clients.JobsResource, vcjob.SchemeGroupVersion.WithKind(vcjob.JobKind),
		func() *vcjob.Job { return &vcjob.Job{} }, func() *vcjob.JobList { return &vcjob.JobList{} },
		func(dst, src *vcjob.JobList) { dst.ListMeta = src.ListMeta },
		func(l *vcjob.JobList) []*vcjob.Job { return ptrs(l.Items) },
		func(l *vcjob.JobList, items []*vcjob.Job) { l.Items = vals(items) })
}

// PodGroups implements clients.Volcano.
func (f *Volcano) PodGroups(namespace string) clients.Resource[*podgroup.PodGroup, *podgroup.PodGroupList] {
	return gentype.NewFakeClientWithList[*podgroup.PodGroup, *podgroup.PodGroupList](&f.Fake, namespace, clients.PodGroupsResource, podgroup.GroupVersionKind(),
		func() *podgroup.PodGroup { return &podgroup.PodGroup{} }, func() *podgroup.PodGroupList { return &podgroup.PodGroupList{} },
		func(dst, src *podgroup.PodGroupList) { dst.ListMeta = src.ListMeta },
		func(l *podgroup.PodGroupList) []*podgroup.PodGroup { return ptrs(l.Items) },
		func(l *podgroup.PodGroupList, items []*podgroup.PodGroup) { l.Items = vals(items) })
}

// Commands implements clients.Volcano.
func (f *Volcano) Commands(namespace string) clients.Resource[*vcjob.Command, *vcjob.CommandList] {
	return gentype.NewFakeClientWithList[*vcjob.Command, *vcjob.CommandList](&f.Fake, namespace, clients.CommandsResource, vcjob.BusSchemeGroupVersion.WithKind(vcjob.CommandKind),
		func() *vcjob.Command { return &vcjob.Command{} }, func() *vcjob.CommandList { return &vcjob.CommandList{} },
		func(dst, src *vcjob.CommandList) { dst.ListMeta = src.ListMeta },
		func(l *vcjob.CommandList) []*vcjob.Command { return ptrs(l.Items) },
		func(l *vcjob.CommandList, items []*vcjob.Command) { l.Items = vals(items) })
}

// CronJobs implements clients.Volcano.
func (f *Volcano) CronJobs(namespace string) clients.Resource[*vcjob.CronJob, *vcjob.CronJobList] {
	return gentype.NewFakeClientWithList[*vcjob.CronJob, *vcjob.CronJobList](&f.Fake, namespace, clients.CronJobsResource, vcjob.SchemeGroupVersion.WithKind(vcjob.CronJobKind),
		func() *vcjob.CronJob { return &vcjob.CronJob{} }, func() *vcjob.CronJobList { return &vcjob.CronJobList{} },
		func(dst, src *vcjob.CronJobList) { dst.ListMeta = src.ListMeta },
		func(l *vcjob.CronJobList) []*vcjob.CronJob { return ptrs(l.Items) },
		func(l *vcjob.CronJobList, items []*vcjob.CronJob) { l.Items = vals(items) })
}

func ptrs[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

func vals[T any](items []*T) []T {
	out := make([]T, len(items))
	for i, p := range items {
		out[i] = *p
	}
	return out
}
