package controller

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/gentype"
	k8stesting "k8s.io/client-go/testing"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
)

// FakeVolcano is Volcano on client-go's object tracker, for tests: the
// same reactors and tracker as a generated fake clientset.
type FakeVolcano struct {
	k8stesting.Fake
	tracker k8stesting.ObjectTracker
}

var _ Volcano = (*FakeVolcano)(nil)

// NewFakeVolcano returns a FakeVolcano holding objs.
func NewFakeVolcano(objs ...runtime.Object) *FakeVolcano {
	scheme, err := NewScheme()
	if err != nil {
		panic(err) // the scheme's registrations are static
	}
	f := &FakeVolcano{tracker: k8stesting.NewObjectTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder())}
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
func (f *FakeVolcano) Tracker() k8stesting.ObjectTracker { return f.tracker }

// Jobs implements Volcano.
func (f *FakeVolcano) Jobs(namespace string) Resource[*vcjob.Job, *vcjob.JobList] {
	return gentype.NewFakeClientWithList[*vcjob.Job, *vcjob.JobList](&f.Fake, namespace, JobsResource, vcjob.SchemeGroupVersion.WithKind(vcjob.JobKind),
		func() *vcjob.Job { return &vcjob.Job{} }, func() *vcjob.JobList { return &vcjob.JobList{} },
		func(dst, src *vcjob.JobList) { dst.ListMeta = src.ListMeta },
		func(l *vcjob.JobList) []*vcjob.Job { return ptrs(l.Items) },
		func(l *vcjob.JobList, items []*vcjob.Job) { l.Items = vals(items) })
}

// PodGroups implements Volcano.
func (f *FakeVolcano) PodGroups(namespace string) Resource[*podgroup.PodGroup, *podgroup.PodGroupList] {
	return gentype.NewFakeClientWithList[*podgroup.PodGroup, *podgroup.PodGroupList](&f.Fake, namespace, PodGroupsResource, podgroup.GroupVersionKind(),
		func() *podgroup.PodGroup { return &podgroup.PodGroup{} }, func() *podgroup.PodGroupList { return &podgroup.PodGroupList{} },
		func(dst, src *podgroup.PodGroupList) { dst.ListMeta = src.ListMeta },
		func(l *podgroup.PodGroupList) []*podgroup.PodGroup { return ptrs(l.Items) },
		func(l *podgroup.PodGroupList, items []*podgroup.PodGroup) { l.Items = vals(items) })
}

// Commands implements Volcano.
func (f *FakeVolcano) Commands(namespace string) Resource[*vcjob.Command, *vcjob.CommandList] {
	return gentype.NewFakeClientWithList[*vcjob.Command, *vcjob.CommandList](&f.Fake, namespace, CommandsResource, vcjob.BusSchemeGroupVersion.WithKind(vcjob.CommandKind),
		func() *vcjob.Command { return &vcjob.Command{} }, func() *vcjob.CommandList { return &vcjob.CommandList{} },
		func(dst, src *vcjob.CommandList) { dst.ListMeta = src.ListMeta },
		func(l *vcjob.CommandList) []*vcjob.Command { return ptrs(l.Items) },
		func(l *vcjob.CommandList, items []*vcjob.Command) { l.Items = vals(items) })
}
