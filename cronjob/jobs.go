package cronjob

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/vcjob/vcjob"
)

// JobState is what Decide needs to know about one job the cronjob owns.
type JobState struct {
	Name      string
	Namespace string // "" is the cronjob's namespace
	UID       types.UID
	// CreationTimestamp orders finished jobs for history cleanup.
	CreationTimestamp time.Time
	// Phase is status.state.phase; "" counts as Pending.
	Phase vcjob.JobPhase
	// ScheduledTime is the volcano.sh/cronjob-scheduled-timestamp
	// annotation, zero when absent: a job for the due time counts as
	// existing even under another name.
	ScheduledTime time.Time
	// FinishedAt is when the job reached its phase (Volcano reads
	// status.state.lastTransitionTime); a Completed job's FinishedAt moves
	// status.lastSuccessfulTime. Zero moves nothing.
	FinishedAt time.Time
}

// JobStateOf reads a JobState from a job. An unreadable scheduled-timestamp
// annotation reads as absent.
func JobStateOf(job *vcjob.Job) JobState {
	if job == nil {
		return JobState{}
	}
	state := JobState{
		Name:              job.Name,
		Namespace:         job.Namespace,
		UID:               job.UID,
		CreationTimestamp: job.CreationTimestamp.Time,
		Phase:             job.Status.State.Phase,
		FinishedAt:        job.Status.State.LastTransitionTime.Time,
	}
	if v, ok := job.Annotations[vcjob.CronJobScheduledTimeKey]; ok {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			state.ScheduledTime = t
		}
	}
	return state
}

// IsControlledBy reports whether the job's controller reference points at
// the cronjob: a batch.volcano.sh/v1alpha1 CronJob of that name (and UID,
// when the cronjob has one), in the same namespace. These are the jobs to
// pass to Decide.
func IsControlledBy(job *vcjob.Job, cj *vcjob.CronJob) bool {
	if job == nil || cj == nil {
		return false
	}
	ref := metav1.GetControllerOfNoCopy(job)
	return ref != nil && ref.APIVersion == vcjob.APIVersion && ref.Kind == vcjob.CronJobKind &&
		ref.Name == cj.Name && (cj.UID == "" || ref.UID == cj.UID) && job.Namespace == cj.Namespace
}

// isFinished: a job in one of these phases runs no more and leaves the
// active list. Aborted counts too, although vcjob.JobPhase.IsFinished
// leaves it out (an aborted job may be resumed, but not by the cronjob).
func isFinished(phase vcjob.JobPhase) bool {
	return phase.IsFinished() || phase == vcjob.Aborted
}

// isSuccessful: the finished phase that counts against
// successfulJobsHistoryLimit and moves lastSuccessfulTime; every other
// finished phase counts against failedJobsHistoryLimit.
func isSuccessful(phase vcjob.JobPhase) bool {
	return phase == vcjob.Completed
}

// jobIndex looks the cronjob's jobs up by UID and by name.
type jobIndex struct {
	byUID  map[types.UID]*JobState
	byName map[string]*JobState
}

func indexJobs(jobs []JobState) jobIndex {
	idx := jobIndex{byUID: map[types.UID]*JobState{}, byName: map[string]*JobState{}}
	for i := range jobs {
		j := &jobs[i]
		if j.UID != "" {
			idx.byUID[j.UID] = j
		}
		idx.byName[j.Name] = j
	}
	return idx
}

// find resolves an active-list reference: by UID when it has one (a job
// recreated under the same name is another job), else by name.
func (idx jobIndex) find(ref corev1.ObjectReference) *JobState {
	if ref.UID != "" {
		return idx.byUID[ref.UID]
	}
	return idx.byName[ref.Name]
}

// jobRef is the active-list reference to a job. A job Decide is about to
// create has no UID yet: a reference without one matches its job by name.
func jobRef(namespace string, job *JobState) corev1.ObjectReference {
	return corev1.ObjectReference{
		APIVersion: vcjob.APIVersion,
		Kind:       vcjob.JobKind,
		Namespace:  namespace,
		Name:       job.Name,
		UID:        job.UID,
	}
}

// reconcileActive drops from the active list the jobs that finished or no
// longer exist, fills in the UID of references that had none, and returns
// the running jobs the list does not hold (jobs the controller did not
// start, or started and then failed to record).
func reconcileActive(active []corev1.ObjectReference, jobs []JobState, idx jobIndex) (kept []corev1.ObjectReference, unexpected []string) {
	listed := map[*JobState]bool{}
	for _, ref := range active {
		job := idx.find(ref)
		if job == nil || isFinished(job.Phase) || listed[job] {
			continue
		}
		listed[job] = true
		if ref.UID == "" {
			ref.UID = job.UID
		}
		kept = append(kept, ref)
	}
	for i := range jobs {
		if !isFinished(jobs[i].Phase) && !listed[&jobs[i]] {
			unexpected = append(unexpected, jobs[i].Name)
		}
	}
	return kept, unexpected
}

// lastSuccessful is the latest FinishedAt of a Completed job, if later than
// current.
func lastSuccessful(current *metav1.Time, jobs []JobState) *metav1.Time {
	latest := current
	for _, j := range jobs {
		if isSuccessful(j.Phase) && !j.FinishedAt.IsZero() && (latest == nil || j.FinishedAt.After(latest.Time)) {
			latest = &metav1.Time{Time: j.FinishedAt}
		}
	}
	return latest
}
