package vcjob

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopy for the CronJob types, written by hand in the shape deepcopy-gen
// produces (the types carry +k8s:deepcopy-gen=false so that regenerating
// zz_generated.deepcopy.go does not define these a second time).

// DeepCopyInto copies in into out; in must be non-nil.
func (in *CronJob) DeepCopyInto(out *CronJob) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
	if in.nullPodTemplates != nil {
		out.nullPodTemplates = append([]int(nil), in.nullPodTemplates...)
	}
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *CronJob) DeepCopy() *CronJob {
	if in == nil {
		return nil
	}
	out := new(CronJob)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *CronJob) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; in must be non-nil.
func (in *CronJobList) DeepCopyInto(out *CronJobList) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]CronJob, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *CronJobList) DeepCopy() *CronJobList {
	if in == nil {
		return nil
	}
	out := new(CronJobList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *CronJobList) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; in must be non-nil.
func (in *CronJobSpec) DeepCopyInto(out *CronJobSpec) {
	*out = *in
	out.TimeZone = copyPointer(in.TimeZone)
	out.StartingDeadlineSeconds = copyPointer(in.StartingDeadlineSeconds)
	out.Suspend = copyPointer(in.Suspend)
	in.JobTemplate.DeepCopyInto(&out.JobTemplate)
	out.SuccessfulJobsHistoryLimit = copyPointer(in.SuccessfulJobsHistoryLimit)
	out.FailedJobsHistoryLimit = copyPointer(in.FailedJobsHistoryLimit)
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *CronJobSpec) DeepCopy() *CronJobSpec {
	if in == nil {
		return nil
	}
	out := new(CronJobSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; in must be non-nil.
func (in *JobTemplateSpec) DeepCopyInto(out *JobTemplateSpec) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *JobTemplateSpec) DeepCopy() *JobTemplateSpec {
	if in == nil {
		return nil
	}
	out := new(JobTemplateSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; in must be non-nil.
func (in *CronJobStatus) DeepCopyInto(out *CronJobStatus) {
	*out = *in
	if in.Active != nil {
		// ObjectReference holds only strings, so a shallow element copy is deep.
		out.Active = make([]corev1.ObjectReference, len(in.Active))
		copy(out.Active, in.Active)
	}
	out.LastScheduleTime = in.LastScheduleTime.DeepCopy()
	out.LastSuccessfulTime = in.LastSuccessfulTime.DeepCopy()
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *CronJobStatus) DeepCopy() *CronJobStatus {
	if in == nil {
		return nil
	}
	out := new(CronJobStatus)
	in.DeepCopyInto(out)
	return out
}

// copyPointer returns a pointer to a copy of *p, or nil.
func copyPointer[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
