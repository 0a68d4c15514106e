package clients

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
)

// FieldManager is the name the controllers' writes are recorded under.
const FieldManager = "vcjob-controller"

// The custom resources the controllers read and write.
var (
	JobsResource      = vcjob.SchemeGroupVersion.WithResource("jobs")
	CronJobsResource  = vcjob.SchemeGroupVersion.WithResource("cronjobs")
	PodGroupsResource = podgroup.SchemeGroupVersion.WithResource("podgroups")
	CommandsResource  = vcjob.BusSchemeGroupVersion.WithResource("commands")
)

// NewScheme returns a scheme with client-go's built-in types and vcjob's
// (Job, CronJob, Command, PodGroup and their lists).
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, vcjob.AddToScheme, podgroup.AddToScheme} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("scheme: %w", err)
		}
	}
	return s, nil
}
