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
//
// The pod mounts each job volume under a name drawn from a NameSource
// seeded by the job's UID and the pod's name; RenderPodWith takes the
// source and the choices from opts (its plugins are not run).
func RenderPod(job *vcjob.Job, task *vcjob.TaskSpec, index int) *corev1.Pod {
	return RenderPodWith(job, task, index, PlanOptions{})
}

// RenderPodWith is RenderPod with opts' name source and choices.
func RenderPodWith(job *vcjob.Job, task *vcjob.TaskSpec, index int, opts PlanOptions) *corev1.Pod {
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
	if len(job.Spec.Volumes) > 0 {
		var names NameSource
		if !opts.Choices.DeterministicClaimNames {
			names = opts.Names
			if names == nil {
				names = namesFor(nil, string(job.UID)+"/"+pod.Name)
			}
		}
		mountVolumes(job, pod, names)
	}

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

// VolumeClaimName is the claim a job volume mounts under
// Choices.DeterministicClaimNames: the volume's own claim name, else
// <job>-volume-<i>, derived from the volume's position so that plans are
// reproducible. (Volcano draws <job>-pvc-<12 random> and writes it back
// into the job.)
func VolumeClaimName(job *vcjob.Job, i int) string {
	if n := job.Spec.Volumes[i].VolumeClaimName; n != "" {
		return n
	}
	return job.Name + "-volume-" + strconv.Itoa(i)
}

// mountVolumes adds each job volume as a PVC volume mounted in every
// container (not init containers); a claim named twice is mounted once.
// Volcano names each <job>-<12 random>, drawn for every volume, even one
// whose claim is mounted already; with names nil (deterministic choice)
// the volume is named <job>-volume-<i> and mounts VolumeClaimName.
func mountVolumes(job *vcjob.Job, pod *corev1.Pod, names NameSource) {
	seen := map[string]bool{}
	for i, v := range job.Spec.Volumes {
		claim := v.VolumeClaimName
		name := job.Name + "-volume-" + strconv.Itoa(i)
		if names != nil {
			name = job.Name + "-" + names.RandomString(12)
		} else {
			claim = VolumeClaimName(job, i)
		}
		if seen[claim] {
			continue
		}
		seen[claim] = true
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{
			Name:         name,
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}},
		})
		for c := range pod.Spec.Containers {
			pod.Spec.Containers[c].VolumeMounts = append(pod.Spec.Containers[c].VolumeMounts, corev1.VolumeMount{Name: name, MountPath: v.MountPath})
		}
	}
}
