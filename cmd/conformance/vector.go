package main

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
)

// Case is one recorded controller step (see FORMAT.md in the conformance
// folder).
type Case struct {
	Name     string          `json:"name"`
	Job      json.RawMessage `json:"job"`
	Pods     []*corev1.Pod   `json:"pods"`
	PodGroup *struct {
		Phase string `json:"phase"`
	} `json:"podGroup"`
	Request request.Request `json:"request"`
	Expect  Expect          `json:"expect"`

	// v2 (FORMAT-v2.md): the objects around the job.
	Tags               []string                     `json:"tags,omitempty"`
	PodGroupObject     *podgroup.PodGroup           `json:"podGroupObject,omitempty"`
	Queues             []string                     `json:"queues,omitempty"`
	PriorityClasses    []PriorityClass              `json:"priorityClasses,omitempty"`
	PVCs               []string                     `json:"pvcs,omitempty"`
	CreatedPodVariants map[string][]json.RawMessage `json:"createdPodVariants,omitempty"`
	// ExpectAlternatives (release files) are outcomes Volcano's code
	// produces with equal right (Go's map order): the case matches Expect
	// or any one of them. alternatives are them decoded.
	ExpectAlternatives []json.RawMessage `json:"expectAlternatives,omitempty"`
	alternatives       []Expect
	// Webhook (release files) is the release's validating webhook's
	// verdict on a job master's accepts; Expect is still what the
	// controller does with the job stored anyway.
	Webhook *webhookVerdict `json:"webhook,omitempty"`
}

// webhookVerdict is an admission webhook's answer to a create.
type webhookVerdict struct {
	Allowed bool   `json:"allowed"`
	Message string `json:"message,omitempty"`
}

// refused reports whether the case records a webhook refusal.
func (c *Case) refused() bool { return c.Webhook != nil && !c.Webhook.Allowed }

// V2 reports whether the case records whole objects (FORMAT-v2.md): v2
// cases always name the queues in the lister. v3 cases are v2 cases too.
func (c *Case) V2() bool { return c.Queues != nil }

// V3 reports whether the case records the Events of the step
// (FORMAT-v3.md).
func (c *Case) V3() bool { return c.Expect.Events != nil }

// PriorityClass is one entry of the PriorityClass lister.
type PriorityClass struct {
	Name  string `json:"name"`
	Value int32  `json:"value"`
}

// Expect is what Volcano did.
type Expect struct {
	Action          vcjob.Action `json:"action"`
	DelaySeconds    float64      `json:"delaySeconds"`
	Error           bool         `json:"error"`
	Status          Status       `json:"status"`
	DeletedPods     []string     `json:"deletedPods"`
	CreatedPods     []PodMeta    `json:"-"`
	PodGroupDeleted bool         `json:"podGroupDeleted"`

	// RawCreatedPods are the created pods as recorded: names, labels and
	// annotations in v1, whole pods in v2.
	RawCreatedPods []json.RawMessage `json:"createdPods"`

	// v2 (FORMAT-v2.md).
	ErrorText           string            `json:"errorText,omitempty"`
	StatusWrites        *int              `json:"statusWrites,omitempty"`
	ControlledResources map[string]string `json:"controlledResources,omitempty"`
	PodGroup            json.RawMessage   `json:"podGroup,omitempty"`
	MinResources        json.RawMessage   `json:"minResources,omitempty"`
	PluginObjects       []json.RawMessage `json:"pluginObjects,omitempty"`
	PVCs                []json.RawMessage `json:"pvcs,omitempty"`
	JobSpecVolumes      json.RawMessage   `json:"jobSpecVolumes,omitempty"`

	// v3 (FORMAT-v3.md): the Kubernetes Events recorded. Events are the
	// step's (the state machine's call), ProcessNextReqEvents those
	// processNextReq records before it; nil when the case has none (v1,
	// v2).
	Events               *[]record.Event `json:"events,omitempty"`
	ProcessNextReqEvents *[]record.Event `json:"processNextReqEvents,omitempty"`

	// input and written are the job before the step and as it stored
	// after it (a replay's own, for normalising generated names).
	input, written *vcjob.Job
	// createdClaims are the names of the claims the replay created.
	createdClaims []string
	// stepEvents are the Events of the worker step's record (-via step):
	// processNextReq's, then the call's, in one list.
	stepEvents []record.Event
	viaStep    bool
}

// Status is the part of the job status the vectors compare.
type Status struct {
	Phase           vcjob.JobPhase                         `json:"phase"`
	RetryCount      int32                                  `json:"retryCount"`
	Version         int32                                  `json:"version"`
	MinAvailable    int32                                  `json:"minAvailable"`
	Pending         int32                                  `json:"pending"`
	Running         int32                                  `json:"running"`
	Succeeded       int32                                  `json:"succeeded"`
	Failed          int32                                  `json:"failed"`
	Terminating     int32                                  `json:"terminating"`
	Unknown         int32                                  `json:"unknown"`
	TaskStatusCount map[string]map[string]map[string]int32 `json:"taskStatusCount"`
	Conditions      []vcjob.JobPhase                       `json:"conditions"`
}

// PodMeta is a created pod as the vectors record it.
type PodMeta struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// statusOf reduces a job status to what the vectors compare.
func statusOf(s vcjob.JobStatus) Status {
	out := Status{
		Phase: s.State.Phase, RetryCount: s.RetryCount, Version: s.Version, MinAvailable: s.MinAvailable,
		Pending: s.Pending, Running: s.Running, Succeeded: s.Succeeded, Failed: s.Failed,
		Terminating: s.Terminating, Unknown: s.Unknown,
		TaskStatusCount: map[string]map[string]map[string]int32{},
		Conditions:      []vcjob.JobPhase{},
	}
	for task, ts := range s.TaskStatusCount {
		m := map[string]int32{}
		for phase, n := range ts.Phase {
			m[string(phase)] = n
		}
		out.TaskStatusCount[task] = map[string]map[string]int32{"phase": m}
	}
	for _, c := range s.Conditions {
		out.Conditions = append(out.Conditions, c.Status)
	}
	return out
}
