package applier

import (
	"context"
	"encoding/json"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/statemachine"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

// PodGroupState implements statemachine.Applier: the job's PodGroup (new
// name, then the legacy one) as the informer sees it.
func (a *Applier) PodGroupState(_ context.Context, job *vcjob.Job) (statemachine.PodGroupState, error) {
	pg, found, err := a.FindPodGroup(job)
	if err != nil || !found {
		return statemachine.PodGroupState{}, err
	}
	return statemachine.PodGroupState{Exists: true, Phase: pg.Status.Phase, Conditions: pg.Status.Conditions}, nil
}

// FindPodGroup is the job's PodGroup in the informer's store, under its
// name or the legacy one.
func (a *Applier) FindPodGroup(job *vcjob.Job) (*podgroup.PodGroup, bool, error) {
	return podgroup.Find(job, func(name string) (*podgroup.PodGroup, bool, error) {
		return a.PodGroups(job.Namespace, name)
	})
}

// ApplyPodGroup implements statemachine.Applier: create the PodGroup when
// the job has none, else write podgroup.Update's changes. The write is a
// JSON patch of the five fields Update owns, guarded by the cached
// object's resourceVersion (a conflict fails the step, which is
// requeued), so fields this controller does not know (status conditions,
// newer spec fields) survive, with no read before the write.
func (a *Applier) ApplyPodGroup(parent context.Context, desired *podgroup.PodGroup) error {
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Namespace: desired.Namespace, Name: desired.Name}}
	if o := metav1.GetControllerOf(desired); o != nil {
		job.Name, job.UID = o.Name, o.UID
	}
	existing, found, err := a.FindPodGroup(job)
	if err != nil {
		return err
	}
	// Every sync comes here and nearly all find nothing to write: the
	// context and client are made only for a write.
	if !found {
		key := desired.Namespace + "/" + desired.Name
		if a.Expectations.PodGroupCreationExpected(key) {
			// Created by an earlier sync, not shown by the informer yet:
			// a create would be answered 409.
			return nil
		}
		ctx, cancel := CallContext(parent)
		defer cancel()
		pg := desired.DeepCopy()
		pg.Status = podgroup.Status{}
		_, err = a.Volcano.PodGroups(desired.Namespace).Create(ctx, pg, metav1.CreateOptions{FieldManager: clients.FieldManager})
		if err == nil || apierrors.IsAlreadyExists(err) {
			// It exists: until the informer shows it, syncs do not
			// create it again; the first sync after that updates it.
			a.Expectations.ExpectPodGroupCreation(key)
			return nil
		}
		return err
	}
	// Nearly every sync finds nothing to change: ask before Update copies
	// the PodGroup.
	if !podgroup.NeedsUpdate(existing, desired) {
		return nil
	}
	next, changed := podgroup.Update(*existing, *desired)
	if !changed {
		return nil
	}
	patch, err := podGroupPatch(existing, &next)
	if err != nil {
		return err
	}
	ctx, cancel := CallContext(parent)
	defer cancel()
	_, err = a.Volcano.PodGroups(desired.Namespace).Patch(ctx, existing.Name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: clients.FieldManager})
	return err
}

// podGroupFields are the spec fields podgroup.Update owns.
var podGroupFields = []string{"priorityClassName", "minMember", "minResources", "minTaskMember", "subGroupPolicy"}

// podGroupPatch is the JSON patch (RFC 6902) that takes the spec fields
// podgroup.Update owns from existing's values to next's, after a test of
// existing's resourceVersion.
func podGroupPatch(existing, next *podgroup.PodGroup) ([]byte, error) {
	have, err := specFields(&existing.Spec)
	if err != nil {
		return nil, err
	}
	want, err := specFields(&next.Spec)
	if err != nil {
		return nil, err
	}
	type op struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value,omitempty"`
	}
	var ops []op
	if existing.ResourceVersion != "" {
		rv, _ := json.Marshal(existing.ResourceVersion)
		ops = append(ops, op{Op: "test", Path: "/metadata/resourceVersion", Value: rv})
	}
	for _, f := range podGroupFields {
		v, ok := want[f]
		switch _, had := have[f]; {
		case ok:
			ops = append(ops, op{Op: "add", Path: "/spec/" + f, Value: v}) // add replaces a member that exists
		case had:
			ops = append(ops, op{Op: "remove", Path: "/spec/" + f})
		}
	}
	return json.Marshal(ops)
}

func specFields(spec *podgroup.Spec) (map[string]json.RawMessage, error) {
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	return out, json.Unmarshal(data, &out)
}

// DeletePodGroup implements statemachine.Applier; NotFound reports false.
// A PodGroup the informer's cache does not hold is not deleted: every
// event of a finished job is a kill, and without the look-up each one
// would send a delete answered NotFound (Volcano looks in its PodGroup
// lister too).
func (a *Applier) DeletePodGroup(parent context.Context, job *vcjob.Job) (bool, error) {
	name := podgroup.Name(job)
	var uid types.UID
	if a.PodGroups != nil {
		pg, found, err := a.PodGroups(job.Namespace, name)
		if err == nil && !found {
			return false, nil
		}
		if found {
			// Deleted already by an earlier kill; the lister has not
			// shown the delete yet.
			if a.Expectations.PodGroupDeletionExpected(pg.UID) {
				return false, nil
			}
			uid = pg.UID
		}
	}
	ctx, cancel := CallContext(parent)
	defer cancel()
	err := a.Volcano.PodGroups(job.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
	switch {
	case apierrors.IsNotFound(err):
		a.Expectations.ExpectPodGroupDeletion(uid)
		return false, nil
	case err != nil:
		return false, err
	}
	a.Expectations.ExpectPodGroupDeletion(uid)
	return true, nil
}
