package semantics

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
)

// Annotation is the job annotation that chooses the semantics
// profile of one job, on top of the one its embedder chose (see
// Semantics.For). It is vcjob's own key: Volcano ignores it.
const Annotation = "vcjob.dev/semantics"

// Semantics says where a job's decisions depart from Volcano's. Each field
// corrects one behaviour of Volcano that looks like a bug; the zero value,
// Volcano, reproduces Volcano decision for decision. Corrected turns every
// correction on; a user may take any one of them alone.
//
// Semantics are about decisions (phases, counts, what a request resolves
// to, which delayed action a pod event cancels). What vcjob writes into
// objects when it departs from Volcano is statemachine.Choices.
type Profile struct {
	// CountFinishedAfterKill: a kill counts the Succeeded and Failed pods
	// it leaves alone in the status (succeeded, failed, taskStatusCount),
	// so completion rules still see work already done. Volcano counts only
	// the pods whose deletion failed, and zeroes the rest (volcano#4616).
	CountFinishedAfterKill bool `json:"countFinishedAfterKill,omitempty"`
	// DelaysByPodUID: a delayed action belongs to the pod (its UID) whose
	// event registered it, not to the pod's name. An event of a pod
	// re-created under the same name neither cancels the old pod's action
	// nor is dropped as a duplicate of it (volcano#5507).
	DelaysByPodUID bool `json:"delaysByPodUID,omitempty"`
	// ResumeKeepsRetries: ResumeJob moves an Aborting or Aborted job to
	// Restarting without counting a retry (volcano#3067). In Volcano each
	// resume spends one, and a job resumed maxRetry times fails at once.
	ResumeKeepsRetries bool `json:"resumeKeepsRetries,omitempty"`
	// AbortWhileRestarting: AbortJob in Restarting aborts (Aborting, a
	// kill that keeps finished pods). In Volcano it is a whole-job kill
	// under the restart rule that never leaves Restarting for Aborting.
	AbortWhileRestarting bool `json:"abortWhileRestarting,omitempty"`
	// PodGroupRequestsCurrentVersion: a request raised by a PodGroup's
	// phase change (Unknown among them) carries the job's current
	// status.version. In Volcano it carries 0, so once the job has been
	// killed once it is stale and Unknown policies never fire again.
	PodGroupRequestsCurrentVersion bool `json:"podGroupRequestsCurrentVersion,omitempty"`
	// LeaveFinishedJobs: an event on a Completed, Failed, Terminated or
	// Aborted job that has no pod left to delete changes nothing: no kill,
	// no version bump, no status write. (ResumeJob still resumes an
	// Aborted job.) Volcano kills such a job again on every event and
	// bumps status.version each time.
	LeaveFinishedJobs bool `json:"leaveFinishedJobs,omitempty"`
	// OutOfSyncCountedOnce: a sync counts an out-of-sync pod it deletes
	// once, as terminating. Volcano counts it by its phase as well.
	OutOfSyncCountedOnce bool `json:"outOfSyncCountedOnce,omitempty"`
	// FinishedPodsOnAdd: a pod the cache first sees already Failed raises
	// PodFailed with its exit code, and one already Succeeded whose task
	// is completed raises TaskCompleted, as seeing the pod finish would
	// have. A pod finishes unseen when it does so while the controller is
	// down (a restart, a new leader) or between a watch's end and the
	// relist. Volcano raises PodPending for it, and the failure's policy
	// never runs: a job whose other pods keep running never restarts.
	FinishedPodsOnAdd bool `json:"finishedPodsOnAdd,omitempty"`
	// PodGroupPhaseOnAdd: a PodGroup the cache's feed first shows already
	// in a phase, after the informer's first list, raises the request its
	// missed phase change would have. That is a relist after a lost
	// watch. Volcano has no add handler for PodGroups and raises nothing.
	// A job waiting for its PodGroup's admission (Pending, or Restarting
	// after a kill) goes on with the sync the PodGroup's move to Inqueue
	// raises: syncs before it create no pods, and in Restarting keep the
	// terminating count the kill wrote. When the watch loses that move
	// the job waits for ever, with no pods.
	PodGroupPhaseOnAdd bool `json:"podGroupPhaseOnAdd,omitempty"`
	// ExitCodeFirstFailedContainer: a PodFailed request carries the exit
	// code of the first container, in the pod spec's order, that
	// terminated with a non-zero code. Volcano reads the first container
	// status only (volcano#5452): with a sidecar or a second container,
	// exit-code policies match whatever the first container says, and
	// none when it exited 0.
	ExitCodeFirstFailedContainer bool `json:"exitCodeFirstFailedContainer,omitempty"`
	// FailurePolicyBeforeSync: a step asked to sync a Running job whose
	// cache shows a Failed pod of the job's current version, not
	// terminating, whose failure the job's policies act on at once, runs
	// that policy instead of the sync. No step has acted on such a failure
	// yet: every action but SyncJob takes the job out of Running, or
	// deletes the pod, or bumps the version. Volcano syncs: the cache
	// already holds the failure while the pod's own request waits in the
	// queue (the job's add after a controller restart queues its sync
	// first), so the sync may count every pod finished and move the job to
	// Failed or Completed, and the request then finds a finished job and
	// its policy (RestartJob) never runs (volcano#3967).
	FailurePolicyBeforeSync bool `json:"failurePolicyBeforeSync,omitempty"`
	// CacheByJobUID: the cache holds a job's pods by the job's UID: a pod
	// whose controller is another job of the same namespace and name (one
	// deleted, its pods still being deleted, a finalizer holding them) is
	// not filed under the job created again under that name, and its late
	// events never change the new job's info. Volcano keys its cache by
	// namespace/name only (volcano#5973): the new job takes over the old
	// one's entry with its pods, counts them (a Succeeded one completes
	// the new job's task), and does not create the pods whose names they
	// hold until they are gone.
	CacheByJobUID bool `json:"cacheByJobUID,omitempty"`
	// KillStatusFirst: a kill that moves the job into Restarting,
	// Aborting, Completing or Terminating, or counts a retry, and deletes
	// a pod, writes that change (phase, retryCount, status.version, the
	// transition time and condition, the counts as stored) before its
	// first out-of-sync mark or pod delete, then writes the counts after
	// them as Volcano does. A controller stopped between the two finds the
	// job in the kill's phase, whose state kills again on its next
	// request. Volcano writes the status only after the deletes: a
	// controller stopped in between leaves the pods marked or gone and
	// the job in its old phase, and the action (its phase change, its
	// retry) is never taken.
	KillStatusFirst bool `json:"killStatusFirst,omitempty"`
}

// Corrected is the profile with every correction on. The zero Semantics is Volcano's.
func Corrected() Profile {
	var s Profile
	for _, c := range switches {
		*c.field(&s) = true
	}
	return s
}

// +k8s:deepcopy-gen=false

// Switch describes one correction: its name in the annotation,
// the field it sets, what Volcano does, what the correction does, and the
// upstream report where there is one.
type Switch struct {
	Name      string `json:"name"`
	Field     string `json:"field"`
	Volcano   string `json:"volcano"`
	Corrected string `json:"corrected"`
	Upstream  string `json:"upstream,omitempty"`

	field func(*Profile) *bool
}

// Enabled reports whether s has this correction on.
func (c Switch) Enabled(s Profile) bool { return *c.field(&s) }

var switches = [...]Switch{
	{Name: "count-finished-after-kill", Field: "CountFinishedAfterKill",
		Volcano:   "after a kill that keeps Succeeded/Failed pods, succeeded, failed and taskStatusCount are zeroed",
		Corrected: "the finished pods a kill leaves alone are still counted",
		Upstream:  "volcano#4616",
		field:     func(s *Profile) *bool { return &s.CountFinishedAfterKill }},
	{Name: "delays-by-pod-uid", Field: "DelaysByPodUID",
		Volcano:   "delayed actions are keyed by pod name: a re-created pod's events cancel, or are dropped as duplicates of, the old pod's pending action",
		Corrected: "delayed actions belong to the pod UID that registered them",
		Upstream:  "volcano#5507",
		field:     func(s *Profile) *bool { return &s.DelaysByPodUID }},
	{Name: "resume-keeps-retries", Field: "ResumeKeepsRetries",
		Volcano:   "ResumeJob counts a retry",
		Corrected: "ResumeJob restarts the job without counting a retry",
		Upstream:  "volcano#3067",
		field:     func(s *Profile) *bool { return &s.ResumeKeepsRetries }},
	{Name: "abort-while-restarting", Field: "AbortWhileRestarting",
		Volcano:   "AbortJob in Restarting is a whole-job kill that stays under the restart rule and never aborts",
		Corrected: "AbortJob in Restarting aborts",
		field:     func(s *Profile) *bool { return &s.AbortWhileRestarting }},
	{Name: "podgroup-requests-current-version", Field: "PodGroupRequestsCurrentVersion",
		Volcano:   "requests raised by PodGroup phase changes carry job version 0, so after the first kill they are stale and Unknown policies never fire",
		Corrected: "they carry the job's current version",
		field:     func(s *Profile) *bool { return &s.PodGroupRequestsCurrentVersion }},
	{Name: "leave-finished-jobs", Field: "LeaveFinishedJobs",
		Volcano:   "every event on a finished or Aborted job is a kill that bumps status.version and writes the status",
		Corrected: "a finished or Aborted job with no pod left to delete is left alone",
		field:     func(s *Profile) *bool { return &s.LeaveFinishedJobs }},
	{Name: "out-of-sync-counted-once", Field: "OutOfSyncCountedOnce",
		Volcano:   "a sync counts an out-of-sync pod it deletes twice: by its phase and as terminating",
		Corrected: "it is counted once, as terminating",
		field:     func(s *Profile) *bool { return &s.OutOfSyncCountedOnce }},
	{Name: "finished-pods-on-add", Field: "FinishedPodsOnAdd",
		Volcano:   "a pod first seen already Failed or Succeeded (it finished while the controller was down, or between a watch and its relist) raises PodPending: its failure or its task's completion is never acted on",
		Corrected: "it raises PodFailed with its exit code, or TaskCompleted when its task is completed, as seeing it finish would have",
		field:     func(s *Profile) *bool { return &s.FinishedPodsOnAdd }},
	{Name: "podgroup-phase-on-add", Field: "PodGroupPhaseOnAdd",
		Volcano:   "a PodGroup first seen already in a phase (its phase change lost with a cut watch, the relist showing it as new) raises nothing: a job waiting for its PodGroup's admission (Pending, or Restarting after a kill) whose move to Inqueue was lost waits for ever, with no pods",
		Corrected: "it raises the request its missed phase change would have",
		field:     func(s *Profile) *bool { return &s.PodGroupPhaseOnAdd }},
	{Name: "exit-code-first-failed-container", Field: "ExitCodeFirstFailedContainer",
		Volcano:   "a pod failure's exit code is the first container status's: with a sidecar or a second container, exit-code policies match the wrong code, or none when the first container exited 0",
		Corrected: "it is the code of the first container, in the pod spec's order, that terminated with a non-zero code",
		Upstream:  "volcano#5452",
		field:     func(s *Profile) *bool { return &s.ExitCodeFirstFailedContainer }},
	{Name: "failure-policy-before-sync", Field: "FailurePolicyBeforeSync",
		Volcano:   "a sync of a Running job counts a pod failure whose own request is still queued (after a controller restart, the job's add is synced first): it may finish the job, and the failure's policy (RestartJob) then finds a finished job and never runs",
		Corrected: "a step asked to sync a Running job runs, instead, the policy of a current pod failure the cache shows and no step acted on",
		Upstream:  "volcano#3967",
		field:     func(s *Profile) *bool { return &s.FailurePolicyBeforeSync }},
	{Name: "cache-by-job-uid", Field: "CacheByJobUID",
		Volcano:   "the cache keys jobs by namespace/name: a job deleted and created again takes over the old job's entry, whose pods still being deleted it counts (a Succeeded one completes the new job's task) and whose late events change its info",
		Corrected: "pods are filed under their job by its UID: the old job's pods and their late events never touch the new job's info",
		Upstream:  "volcano#5973",
		field:     func(s *Profile) *bool { return &s.CacheByJobUID }},
	{Name: "kill-status-first", Field: "KillStatusFirst",
		Volcano:   "a kill writes the job's new phase, retry count and version only after it marks and deletes the pods: a controller stopped in between leaves the pods marked or gone and the job in its old phase, and the action is never taken",
		Corrected: "a kill into Restarting, Aborting, Completing or Terminating, or one that counts a retry, writes that status before its first pod delete, so the next controller finds the job in the kill's phase and kills again",
		field:     func(s *Profile) *bool { return &s.KillStatusFirst }},
}

// Switches lists the corrections, in the order String names them.
func Switches() []Switch {
	out := make([]Switch, len(switches))
	copy(out, switches[:])
	return out
}

// IsVolcano reports whether s decides everything as Volcano does.
func (s Profile) IsVolcano() bool { return s == Profile{} }

// String is "volcano", "corrected", or the names of the corrections that
// are on, comma-separated: a value Parse reads back.
func (s Profile) String() string {
	switch s {
	case Profile{}:
		return "volcano"
	case Corrected():
		return "corrected"
	}
	var names []string
	for _, c := range switches {
		if c.Enabled(s) {
			names = append(names, c.Name)
		}
	}
	return strings.Join(names, ",")
}

// Parse applies value, a comma-separated list of words, to base,
// word by word: "volcano" turns every correction off, "corrected" turns
// every one on, a correction's name (see Switches) turns it on and
// the name after a "-" turns it off. Blanks around words are ignored. An
// unknown word is an error and leaves base as it was.
func Parse(base Profile, value string) (Profile, error) {
	s := base
	for rest := value; rest != ""; {
		var word string
		word, rest, _ = strings.Cut(rest, ",")
		word = strings.TrimSpace(word)
		switch word {
		case "":
			continue
		case "volcano":
			s = Profile{}
			continue
		case "corrected":
			s = Corrected()
			continue
		}
		name, on := word, true
		if n, ok := strings.CutPrefix(word, "-"); ok {
			name, on = n, false
		}
		found := false
		for _, c := range switches {
			if c.Name == name {
				*c.field(&s) = on
				found = true
				break
			}
		}
		if !found {
			return base, fmt.Errorf("semantics: unknown word %q (want volcano, corrected or one of %s)", word, switchNames())
		}
	}
	return s, nil
}

func switchNames() string {
	names := make([]string, len(switches))
	for i, c := range switches {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// For is the semantics of job: s, the embedder's choice, with the job's
// Annotation applied on top (Parse). An annotation that
// does not parse is ignored, so a decision never fails on it;
// ValidateAnnotation and lint.Lint report it. A job without the
// annotation costs one map lookup.
func (s Profile) For(job *vcjob.Job) Profile {
	if job == nil {
		return s
	}
	v, ok := job.Annotations[Annotation]
	if !ok {
		return s
	}
	out, err := Parse(s, v)
	if err != nil {
		return s
	}
	return out
}

// ValidateAnnotation checks the job's Annotation. It is
// not part of ValidateJob: Volcano's admission does not know the key.
func ValidateAnnotation(job *vcjob.Job) field.ErrorList {
	if job == nil {
		return nil
	}
	v, ok := job.Annotations[Annotation]
	if !ok {
		return nil
	}
	if _, err := Parse(Profile{}, v); err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations").Key(Annotation), v, err.Error())}
	}
	return nil
}
