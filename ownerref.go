package vcjob

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ControllerRef is the owner reference that makes job the controller of
// the objects made for it (its pods, PodGroup and plugin objects), so that
// deleting the job deletes them and their events find the job.
func ControllerRef(job *Job) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{
		APIVersion:         APIVersion,
		Kind:               JobKind,
		Name:               job.Name,
		UID:                job.UID,
		Controller:         &yes,
		BlockOwnerDeletion: &yes,
	}
}
