package validation

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Options tunes ValidateJobWith and ValidateJobUpdateWith. The zero value
// validates as ValidateJob does.
type Options struct {
	// ExtraPlugins are plugin names accepted besides
	// vcjob.BuiltinPluginNames, for controllers that register plugins of
	// their own.
	ExtraPlugins []string

	// PodTemplate, when set, replaces the built-in pod template
	// validation (ValidatePodTemplateSpec) of every task's template. It is
	// given the template and the path of the task's template field
	// (spec.tasks[i].template), and returns errors under that path. Plug
	// Kubernetes' own validation in here to check everything the API server
	// would (see validation/podvalidation for the conversion it needs).
	PodTemplate PodTemplateValidator

	// Queues, when set, looks the job's queue up and Volcano's queue rules
	// apply: the queue exists, is Open, is not the root of the queue
	// hierarchy and has no child queues. Without it the queue is assumed to
	// exist, be open and be a leaf, but the name root is still refused: a
	// Volcano cluster always has the root queue, so a job naming it always
	// fails there.
	Queues QueueLookup
}

// PodTemplateValidator validates a task's pod template; path is the
// template's own path (spec.tasks[i].template).
type PodTemplateValidator func(template *corev1.PodTemplateSpec, path *field.Path) field.ErrorList

// QueueLookup answers what Volcano's webhook asks of a job's queue.
type QueueLookup interface {
	// Queue returns the queue's state (as in Queue.status.state: Open,
	// Closed, Closing, Unknown) and whether it exists. An error is a failed
	// lookup, not a missing queue; validation reports it as an internal
	// error on spec.queue.
	Queue(name string) (state string, exists bool, err error)
	// Children is the number of queues whose spec.parent is name.
	Children(name string) (int, error)
}

// RootQueue is the root of Volcano's queue hierarchy, to which no job may
// be submitted.
const RootQueue = "root"

// QueueStateOpen is the only queue state that accepts new jobs.
const QueueStateOpen = "Open"
