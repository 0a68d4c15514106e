package vcjob

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Scheme registration, as every Kubernetes API package has it: with
// AddToScheme, client-go's REST clients and informers, controller-runtime's
// clients and caches, and the apimachinery serializers use vcjob's types
// directly, without unstructured conversion.
//
//	scheme := runtime.NewScheme()
//	_ = vcjob.AddToScheme(scheme) // Job, JobList, CronJob, CronJobList, Command, CommandList
//	codecs := serializer.NewCodecFactory(scheme)
//
// Job and CronJob are in batch.volcano.sh/v1alpha1; Command is in Volcano's
// bus group, bus.volcano.sh/v1alpha1. AddToScheme registers both.

// SchemeGroupVersion is batch.volcano.sh/v1alpha1, the group version of Job
// and CronJob.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: Version}

// BusSchemeGroupVersion is bus.volcano.sh/v1alpha1, the group version of
// Command.
var BusSchemeGroupVersion = schema.GroupVersion{Group: BusGroupName, Version: BusVersion}

// SchemeBuilder collects the functions that add vcjob's types to a scheme.
var SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

// AddToScheme adds Job, JobList, CronJob and CronJobList (batch.volcano.sh
// v1alpha1) and Command and CommandList (bus.volcano.sh v1alpha1) to s,
// with the meta types (ListOptions, WatchEvent, Status...) of both group
// versions.
var AddToScheme = SchemeBuilder.AddToScheme

// Kind takes an unqualified kind and returns it qualified by
// batch.volcano.sh.
func Kind(kind string) schema.GroupKind { return SchemeGroupVersion.WithKind(kind).GroupKind() }

// Resource takes an unqualified resource and returns it qualified by
// batch.volcano.sh.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

// BusKind takes an unqualified kind and returns it qualified by
// bus.volcano.sh.
func BusKind(kind string) schema.GroupKind { return BusSchemeGroupVersion.WithKind(kind).GroupKind() }

// BusResource takes an unqualified resource and returns it qualified by
// bus.volcano.sh.
func BusResource(resource string) schema.GroupResource {
	return BusSchemeGroupVersion.WithResource(resource).GroupResource()
}

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(SchemeGroupVersion, &Job{}, &JobList{}, &CronJob{}, &CronJobList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	s.AddKnownTypes(BusSchemeGroupVersion, &Command{}, &CommandList{})
	metav1.AddToGroupVersion(s, BusSchemeGroupVersion)
	return nil
}
