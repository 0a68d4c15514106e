package statemachine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/record"
)

// The reasons of the Events the three calls record (Effects.Events), as
// Volcano's job controller records them; the type of every one is Warning.
const (
	// ReasonJobStatusError: the first status write of a new job (Pending)
	// failed.
	ReasonJobStatusError = "JobStatusError"
	// ReasonPluginError: a plugin's OnJobAdd or OnJobUpdate failed, or
	// writing the objects it wants did.
	ReasonPluginError = "PluginError"
	// ReasonPVCError: a volume claim could not be ensured (a named claim
	// that does not exist, a failed create or lookup), or the job's spec
	// with the generated claim names could not be written back.
	ReasonPVCError = "PVCError"
	// ReasonPodGroupError: the PodGroup could not be read, created or
	// updated.
	ReasonPodGroupError = "PodGroupError"
	// ReasonPodGroupPending: the PodGroup's latest true condition is not
	// Scheduled; recorded at every sync that finds the PodGroup so.
	ReasonPodGroupPending = "PodGroupPending"
	// ReasonFailedCreate: pods could not be created (Kubernetes'
	// FailedCreatePodReason).
	ReasonFailedCreate = "FailedCreate"
	// ReasonFailedDelete: pods could not be deleted (Kubernetes'
	// FailedDeletePodReason).
	ReasonFailedDelete = "FailedDelete"
)

// The messages are Volcano's, word for word, quirks included: PluginError
// says "job add" for OnJobUpdate too, the causes are formatted with %v,
// and a pod's create or delete error is formatted with %#v (the error's
// Go syntax: what the Applier returned, so an Applier that returns its
// client's errors unwrapped gives Volcano's messages).

func jobStatusErrorEvent(err error) record.Event {
	return record.Warningf(ReasonJobStatusError, "Failed to initialize job status, err: %v", err)
}

func pluginErrorEvent(err error) record.Event {
	return record.Warningf(ReasonPluginError, "Execute plugin when job add failed, err: %v", err)
}

func pvcErrorEvent(err error) record.Event {
	return record.Warningf(ReasonPVCError, "Failed to create PVC, err: %v", err)
}

func podGroupErrorEvent(err error) record.Event {
	return record.Warningf(ReasonPodGroupError, "Failed to create PodGroup, err: %v", err)
}

// podError is a pod's failed create or delete.
type podError struct {
	pod string
	err error
}

// failedCreateEvent is the FailedCreate Event of the pods whose create
// failed, in the order they were sent. Volcano creates them concurrently,
// so the order of several is its goroutines' there.
func failedCreateEvent(errs []podError) record.Event {
	items := make([]string, len(errs))
	for i, e := range errs {
		items[i] = fmt.Sprintf("failed to create pod %s, err: %#v", e.pod, e.err)
	}
	return record.Event{Type: record.Warning, Reason: ReasonFailedCreate, Message: "Error creating pods: [" + strings.Join(items, " ") + "]"}
}

// failedDeleteEvent is the FailedDelete Event of the pods whose delete
// failed: those whose out-of-sync mark failed first (the mark's error as
// it is), then those whose delete failed ("failed to delete pod <name>,
// err <%#v>", without the colon), each in the order they were sent.
// Volcano marks and deletes in map order, and deletes a sync's pods
// concurrently, so the order of several is not fixed there.
func failedDeleteEvent(errs []podError) record.Event {
	items := make([]string, 0, len(errs))
	for _, e := range errs {
		if m, ok := errors.AsType[*MarkError](e.err); ok {
			items = append(items, fmt.Sprint(m.Err))
		}
	}
	for _, e := range errs {
		if _, ok := errors.AsType[*MarkError](e.err); !ok {
			items = append(items, fmt.Sprintf("failed to delete pod %s, err %#v", e.pod, e.err))
		}
	}
	return record.Event{Type: record.Warning, Reason: ReasonFailedDelete, Message: "Error deleting pods: [" + strings.Join(items, " ") + "]"}
}

// MarkError is what Applier.DeletePod returns when marking the pod
// out-of-sync failed, so the pod was not deleted: Volcano reports such a
// failure with the mark's own error, where it reports a failed delete as
// "failed to delete pod <name>, err <error>".
type MarkError struct{ Err error }

func (e *MarkError) Error() string { return "mark pod out of sync: " + e.Err.Error() }

// Unwrap is the mark's error.
func (e *MarkError) Unwrap() error { return e.Err }

// ClaimNotFound is the error Applier.EnsureClaim returns for a claim
// without a Spec (one the job names) that does not exist, in Volcano's
// words: the PVCError Event carries it, and the job stays Pending until
// the claim exists.
func ClaimNotFound(name string) error {
	return fmt.Errorf("pvc %s is not found, the job will be in the Pending state until the PVC is created", name)
}

// PodGroupPendingEvent is the Event Volcano's syncJob records about the
// job's PodGroup as its lister holds it (pg), once the PodGroup has been
// created or updated: when the latest of its true conditions (by
// lastTransitionTime; the first of equal ones) is not Scheduled,
//
//	Warning PodGroupPending PodGroup <namespace>:<job> <type, lower case>, reason: <message>
//
// A PodGroup the lister does not hold yet (just created) records none.
//
// Volcano hands the formatted text to Eventf as its format, so a % in the
// condition's message is formatted again: "50%" reads "50%!(NOVERB)". The
// Event here reads the same.
func PodGroupPendingEvent(job *vcjob.Job, pg PodGroupState) (record.Event, bool) {
	if !pg.Exists || job == nil {
		return record.Event{}, false
	}
	latest := -1
	for i := range pg.Conditions {
		c := &pg.Conditions[i]
		if c.Status != "True" {
			continue
		}
		if latest < 0 || c.LastTransitionTime.After(pg.Conditions[latest].LastTransitionTime.Time) {
			latest = i
		}
	}
	if latest < 0 || pg.Conditions[latest].Type == podgroup.ConditionScheduled {
		return record.Event{}, false
	}
	c := pg.Conditions[latest]
	text := fmt.Sprintf("PodGroup %s:%s %s, reason: %s", job.Namespace, job.Name, strings.ToLower(string(c.Type)), c.Message)
	return record.Event{Type: record.Warning, Reason: ReasonPodGroupPending, Message: formatAgain(text)}, true
}

// formatAgain formats text as a format with no arguments, as Eventf does
// with the message Volcano formatted already.
func formatAgain(text string) string {
	var none []any
	return fmt.Sprintf(text, none...)
}
