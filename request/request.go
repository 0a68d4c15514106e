package request

import (
	"fmt"
	"strings"

	"github.com/vcjob/vcjob"
	"k8s.io/apimachinery/pkg/types"
)

// Request is one item of work for one job: what happened (Event, with the
// pod and task it happened to) or what was asked (Action, set only by
// commands). It is Volcano's apis.Request.
type Request struct {
	Namespace   string       `json:"namespace,omitempty"`
	JobName     string       `json:"jobName,omitempty"`
	JobUID      types.UID    `json:"jobUID,omitempty"`
	TaskName    string       `json:"taskName,omitempty"`
	PodName     string       `json:"podName,omitempty"`
	PodUID      types.UID    `json:"podUID,omitempty"`
	PartitionID string       `json:"partitionID,omitempty"`
	Event       vcjob.Event  `json:"event,omitempty"`
	ExitCode    int32        `json:"exitCode,omitempty"`
	Action      vcjob.Action `json:"action,omitempty"`
	JobVersion  int32        `json:"jobVersion,omitempty"`
	// Disrupted: the pod of a PodFailed or PodEvicted request carries a
	// true DisruptionTarget condition (see Disrupted). Volcano does not
	// look at it; only the Disruptions policy extension reads it.
	Disrupted bool `json:"disrupted,omitempty"`
}

// Key is the job's namespace/name, the key requests are queued and sharded
// by.
func (r Request) Key() string { return JobKey(r.Namespace, r.JobName) }

func (r Request) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s", r.Namespace, r.JobName)
	if r.Event != "" {
		fmt.Fprintf(&b, " event=%s", r.Event)
	}
	if r.Action != "" {
		fmt.Fprintf(&b, " action=%s", r.Action)
	}
	if r.TaskName != "" {
		fmt.Fprintf(&b, " task=%s", r.TaskName)
	}
	if r.PodName != "" {
		fmt.Fprintf(&b, " pod=%s", r.PodName)
	}
	if r.PartitionID != "" {
		fmt.Fprintf(&b, " partition=%s", r.PartitionID)
	}
	if r.ExitCode != 0 {
		fmt.Fprintf(&b, " exitCode=%d", r.ExitCode)
	}
	return b.String()
}

// JobKey is namespace/name.
func JobKey(namespace, name string) string { return namespace + "/" + name }
