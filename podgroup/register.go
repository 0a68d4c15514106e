package podgroup

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SchemeGroupVersion is scheduling.volcano.sh/v1beta1, the group version
// of the PodGroup.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: Version}

// SchemeBuilder collects the functions that add the PodGroup types to a
// scheme.
var SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

// AddToScheme adds PodGroup and PodGroupList, with the meta types of
// scheduling.volcano.sh/v1beta1 (ListOptions, WatchEvent, Status...), to
// a scheme, so client-go's and controller-runtime's typed clients, caches
// and serializers read and write PodGroups as this package's type.
var AddToScheme = SchemeBuilder.AddToScheme

// GroupKind takes an unqualified kind and returns it qualified by
// scheduling.volcano.sh. (It is not called Kind, as in other API packages,
// because the constant Kind names the PodGroup's kind.)
func GroupKind(kind string) schema.GroupKind { return SchemeGroupVersion.WithKind(kind).GroupKind() }

// Resource takes an unqualified resource and returns it qualified by
// scheduling.volcano.sh.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(SchemeGroupVersion, &PodGroup{}, &PodGroupList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return nil
}
