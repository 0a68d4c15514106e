package statemachine

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/partition"
	"github.com/vcjob/vcjob/podgroup"
)

// RenderPod builds the pod the controller creates for task at index, with
// every label and annotation Volcano puts on it. The job-version and
// job-retry-count annotations come from the job's status as it is before
// the step that creates the pod.
func RenderPod(job *vcjob.Job, task *vcjob.TaskSpec, index int) *corev1.Pod {
	tmpl := task.Template.DeepCopy()
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:            vcjob.PodName(job.Name, task.Name, index),
			Namespace:       job.Namespace,
			OwnerReferences: []metav1.OwnerReference{vcjob.ControllerRef(job)},
			Labels:          tmpl.Labels,
			Annotations:     tmpl.Annotations,
		},
		Spec: tmpl.Spec,
	}
	if pod.Spec.SchedulerName == "" {
		pod.Spec.SchedulerName = job.Spec.SchedulerName
	}
	if pod.Spec.PriorityClassName == "" {
		pod.Spec.PriorityClassName = job.Spec.PriorityClassName
	}
	mountVolumes(job, pod)

	idx := strconv.Itoa(index)
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	a := pod.Annotations
	a[vcjob.TaskIndexKey] = idx
	a[vcjob.TaskSpecKey] = task.Name
	a[vcjob.PodGroupNameKey] = podgroup.Name(job)
	a[vcjob.JobNameKey] = job.Name
	a[vcjob.QueueNameKey] = job.Spec.Queue
	a[vcjob.JobVersionKey] = strconv.Itoa(int(job.Status.Version))
	a[vcjob.TemplateUIDKey] = job.Name + "-" + task.Name
	a[vcjob.JobRetryCountKey] = strconv.Itoa(int(job.Status.RetryCount))
	if task.TopologyPolicy != "" {
		a[vcjob.NumaPolicyKey] = string(task.TopologyPolicy)
	}
	for _, k := range []string{vcjob.PreemptableKey, vcjob.CooldownTimeKey, vcjob.RevocableZoneKey} {
		if v, ok := job.Annotations[k]; ok {
			a[k] = v
		}
	}
	// A disruption budget is either a minimum or a maximum, never both.
	if v, ok := job.Annotations[vcjob.JDBMinAvailableKey]; ok {
		a[vcjob.JDBMinAvailableKey] = v
	} else if v, ok := job.Annotations[vcjob.JDBMaxUnavailableKey]; ok {
		a[vcjob.JDBMaxUnavailableKey] = v
	}

	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	l := pod.Labels
	l[vcjob.TaskIndexKey] = idx
	l[vcjob.JobNameKey] = job.Name
	l[vcjob.TaskSpecKey] = task.Name
	l[vcjob.JobNamespaceKey] = job.Namespace
	l[vcjob.QueueNameKey] = job.Spec.Queue
	for _, k := range []string{vcjob.PreemptableKey, vcjob.CooldownTimeKey} {
		if v, ok := job.Labels[k]; ok {
			l[k] = v
		}
	}
	if id, ok := partition.Of(task, index); ok {
		l[vcjob.PartitionIDKey] = id
	}
	return pod
}

// VolumeClaimName is the claim a job volume mounts. A volume that only
// carries a claim spec gets <job>-volume-<i>: Volcano picks a random
// suffix and writes it back into the job; vcjob derives it from the
// volume's position so that plans are reproducible.
func VolumeClaimName(job *vcjob.Job, i int) string {
	if n := job.Spec.Volumes[i].VolumeClaimName; n != "" {
		return n
	}
	return job.Name + "-volume-" + strconv.Itoa(i)
}

// mountVolumes adds each job volume as a PVC volume mounted in every
// container; a claim named twice is mounted once.
func mountVolumes(job *vcjob.Job, pod *corev1.Pod) {
	seen := map[string]bool{}
	for i, v := range job.Spec.Volumes {
		claim := VolumeClaimName(job, i)
		if seen[claim] {
			continue
		}
		seen[claim] = true
		name := job.Name + "-volume-" + strconv.Itoa(i)
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{
			Name:         name,
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}},
		})
		for c := range pod.Spec.Containers {
			pod.Spec.Containers[c].VolumeMounts = append(pod.Spec.Containers[c].VolumeMounts, corev1.VolumeMount{Name: name, MountPath: v.MountPath})
		}
	}
}
