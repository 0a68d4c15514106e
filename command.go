package vcjob

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Command API group of Volcano's bus: a user asks for an action on a job by
// creating a Command (vcctl job suspend/resume does so).
const (
	BusGroupName  = "bus.volcano.sh"
	BusVersion    = "v1alpha1"
	BusAPIVersion = BusGroupName + "/" + BusVersion
	CommandKind   = "Command"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Command is a bus.volcano.sh/v1alpha1 Command: one action for one target
// object. The controller deletes it and turns it into a request.
type Command struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Action       string                 `json:"action,omitempty"`
	TargetObject *metav1.OwnerReference `json:"target,omitempty"`
	Reason       string                 `json:"reason,omitempty"`
	Message      string                 `json:"message,omitempty"`
}

// CommandList is a list of Commands.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type CommandList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Command `json:"items"`
}
