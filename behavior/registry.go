package behavior

import "fmt"

// Kind says what sort of difference an entry is.
type Kind string

// The kinds.
const (
	// Correction: vcjob's correction of a Volcano behaviour that looks
	// like a bug. Off by default; a Set turns it on, for the embedder or
	// for one job (Annotation).
	Correction Kind = "correction"
	// Extension: a lifecycle policy Volcano lacks, asked for by a job's
	// vcjob.dev/policy annotation (policy.Extensions).
	Extension Kind = "extension"
	// Choice: vcjob's own choice in what it writes or how it runs, asked
	// for by the embedder through the option named in Entry.Enable.
	Choice Kind = "choice"
	// Upstream: a change in Volcano's own code between releases. A
	// version has it or not (Entry.Tags); Set.WithVersion picks the
	// version.
	Upstream Kind = "upstream"
)

// ID names one difference. The zero ID names none.
type ID uint8

// The corrections.
const (
	CountFinishedAfterKill ID = iota + 1
	DelaysByPodUID
	ResumeKeepsRetries
	AbortWhileRestarting
	PodGroupRequestsCurrentVersion
	LeaveFinishedJobs
	OutOfSyncCountedOnce
	FinishedPodsOnAdd
	PodGroupPhaseOnAdd
	ExitCodeFirstFailedContainer
	FailurePolicyBeforeSync
	CacheByJobUID
	KillStatusFirst
)

// The policy extensions.
const (
	ExitCodeSets ID = iota + 20
	Disruptions
	Deadline
	RestartBackoff
	RetryBudget
	Escalation
)

// The choices.
const (
	DeterministicClaimNames ID = iota + 30
	RequestsOnlyMinResources
	StrictPluginArguments
	ReplacedEnv
	LabelledPluginObjects
	AdoptExistingJob
	MatchRunsByScheduledTime
	RecordDeletedRuns
	RefuseMachineZones
	RejectBareZonePrefix
	VisitEveryActiveReference
	ReportFailedStatusWrite
)

// bit is id's bit in a Set.
func (id ID) bit() uint64 { return 1 << (id & 63) }

// upstream reports whether id is an upstream change.
func (id ID) upstream() bool { return id.Entry().Kind == Upstream }

// Entry describes one difference from Volcano. Owner and Tests name code
// of this repository: a symbol as "<package dir>.<Name>",
// "<package dir>.<Type>.<Field or Method>" or
// "<package dir>.(*<Type>).<Method>", a test as "<package dir>.<TestName>",
// or a repository file by its path. The registry's own test fails when one
// of them no longer exists.
type Entry struct {
	ID   ID     `json:"-"`
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Volcano is what Volcano does; With is what happens with the
	// difference on.
	Volcano string `json:"volcano"`
	With    string `json:"with"`
	// Detail explains more, where a sentence each is not enough.
	Detail string `json:"detail,omitempty"`
	// Upstream is the Volcano issue or pull request that reports or makes
	// the difference (volcano#NNNN).
	Upstream string `json:"upstream,omitempty"`
	// Enable is how to ask for it, for a choice or an extension; a
	// correction is asked for by its Name (Parse, Annotation).
	Enable string `json:"enable,omitempty"`
	// Owner is the code that makes the difference: where a reader finds
	// the rule. The callers only test the Set and call it.
	Owner string `json:"owner"`
	// Tests pin it.
	Tests []string `json:"tests"`
	// Tags are, for an upstream change, the Volcano versions that contain
	// it (backports included), by their names in VersionNames.
	Tags []string `json:"tags,omitempty"`
}

// Entry is id's entry; the zero Entry for an unknown id.
func (id ID) Entry() Entry {
	for i := range entries {
		if entries[i].ID == id {
			return entries[i]
		}
	}
	return Entry{}
}

// String is id's name; "" for the zero ID.
func (id ID) String() string {
	if id == 0 {
		return ""
	}
	if e := id.Entry(); e.Name != "" {
		return e.Name
	}
	return fmt.Sprintf("unknown-%d", uint8(id))
}

// MarshalText writes id's name, so a transition's When reads as one.
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText reads a name MarshalText wrote.
func (id *ID) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*id = 0
		return nil
	}
	found, ok := Lookup(string(text))
	if !ok {
		return fmt.Errorf("behavior: no difference is named %q", text)
	}
	*id = found
	return nil
}

// Lookup finds a difference by name.
func Lookup(name string) (ID, bool) {
	for i := range entries {
		if entries[i].Name == name {
			return entries[i].ID, true
		}
	}
	return 0, false
}

// Registry lists every difference, corrections first, then extensions,
// then choices; the caller gets its own copy.
func Registry() []Entry {
	out := make([]Entry, len(entries))
	copy(out, entries[:])
	for i := range out {
		out[i].Tests = append([]string(nil), out[i].Tests...)
	}
	return out
}

// entries is the registry. It is never written.
var entries = [...]Entry{
	{ID: CountFinishedAfterKill, Name: "count-finished-after-kill", Kind: Correction,
		Volcano:  "after a kill that keeps Succeeded or Failed pods (AbortJob, CompleteJob, TerminateJob, a restart on its last retry), succeeded, failed and taskStatusCount are zeroed: a Completed job reports no work done",
		With:     "the finished pods a kill leaves alone are still counted",
		Upstream: "volcano#4616",
		Owner:    "statemachine.countFinishedAfterKill",
		Tests:    []string{"statemachine.TestCountFinishedAfterKill", "vcjobtest/scenario/testdata/semantics/count-finished-after-kill.txt"}},
	{ID: DelaysByPodUID, Name: "delays-by-pod-uid", Kind: Correction,
		Volcano:  "delayed actions are keyed by pod name: a re-created pod's PodRunning cancels the old pod's pending action, and its own registration is dropped as the old one's duplicate",
		With:     "a delayed action belongs to the pod UID that registered it",
		Upstream: "volcano#5507",
		Owner:    "delay.(*Queue).RegisterByPodUID",
		Tests:    []string{"delay.TestDelaysByPodUID", "delay.TestByPodUIDDue", "vcjobtest/scenario/testdata/semantics/delays-by-pod-uid.txt"}},
	{ID: ResumeKeepsRetries, Name: "resume-keeps-retries", Kind: Correction,
		Volcano:  "ResumeJob counts a retry: a job resumed maxRetry times fails at once",
		With:     "ResumeJob moves an Aborting or Aborted job to Restarting without counting one (a row of the transition table)",
		Upstream: "volcano#3067",
		Owner:    "statemachine.Table",
		Tests:    []string{"statemachine.TestTableVariants", "vcjobtest/scenario/testdata/semantics/resume-keeps-retries.txt"}},
	{ID: AbortWhileRestarting, Name: "abort-while-restarting", Kind: Correction,
		Volcano: "AbortJob in Restarting is a whole-job kill under the restart rule: the job never aborts",
		With:    "it aborts: Aborting, finished pods kept (a row of the transition table)",
		Owner:   "statemachine.Table",
		Tests:   []string{"statemachine.TestTableVariants", "vcjobtest/scenario/testdata/semantics/abort-while-restarting.txt"}},
	{ID: PodGroupRequestsCurrentVersion, Name: "podgroup-requests-current-version", Kind: Correction,
		Volcano: "requests raised by PodGroup phase changes carry job version 0: after the job's first kill they are stale, and Unknown policies never fire again",
		With:    "they carry the job's current status.version",
		Owner:   "cache.(*Cache).podGroupRequestVersion",
		Tests:   []string{"cache.TestPodGroupRequestsCurrentVersion", "vcjobtest/scenario/testdata/semantics/podgroup-requests-current-version.txt"}},
	{ID: LeaveFinishedJobs, Name: "leave-finished-jobs", Kind: Correction,
		Volcano: "every event on a Completed, Failed, Terminated or Aborted job is a kill that bumps status.version and writes the status",
		With:    "a finished or Aborted job with no pod left to delete is left alone: no call (statemachine.CallNone); ResumeJob still resumes an Aborted job",
		Owner:   "statemachine.leaveAlone",
		Tests:   []string{"statemachine.TestLeaveFinishedJobs", "vcjobtest/scenario/testdata/semantics/leave-finished-jobs.txt"}},
	{ID: OutOfSyncCountedOnce, Name: "out-of-sync-counted-once", Kind: Correction,
		Volcano: "a sync counts an out-of-sync pod it deletes twice: by its phase and as terminating",
		With:    "it is counted once, as terminating",
		Owner:   "statemachine.outOfSyncCountedOnce",
		Tests:   []string{"statemachine.TestOutOfSyncCountedOnce"}},
	{ID: FinishedPodsOnAdd, Name: "finished-pods-on-add", Kind: Correction,
		Volcano: "a pod first seen already Failed or Succeeded (it finished while the controller was down, or between a cut watch and the relist) raises PodPending: its failure's policy never runs, and a job whose other pods run on never restarts",
		With:    "it raises PodFailed with its exit code, or TaskCompleted when its task is completed, as seeing it finish would have; pods that arrived before their job raise theirs when the job is added (cache.OnJobAddWithPods)",
		Owner:   "cache.finishedPodAddEvent",
		Tests:   []string{"cache.TestFinishedPodsOnAdd", "cache.TestFinishedPodsBeforeTheirJob"}},
	{ID: PodGroupPhaseOnAdd, Name: "podgroup-phase-on-add", Kind: Correction,
		Volcano: "a PodGroup first seen already in a phase raises nothing (Volcano has no add handler for PodGroups): when a cut watch lost its move to Inqueue, the relist shows it as new, and a job waiting for its admission waits for ever with no pods",
		With:    "outside the informer's first list, it raises the request of the phase change it missed; a new PodGroup has no phase, so a watch that loses nothing never raises it",
		Detail:  "In Pending, the syncs before the PodGroup's move to Inqueue create nothing; in Restarting after a kill, they also keep the terminating count the kill wrote. Either way only the request of that move lets the job go on.",
		Owner:   "cache.(*Cache).podGroupPhaseOnAdd",
		Tests:   []string{"cache.TestPodGroupPhaseOnAdd", "vcjobtest/scenario/testdata/semantics/podgroup-phase-on-add.txt"}},
	{ID: ExitCodeFirstFailedContainer, Name: "exit-code-first-failed-container", Kind: Correction,
		Volcano:  "a PodFailed request carries the exit code of the first container status: with a sidecar or a second container, exit-code policies match whatever the first container says, and none when it exited 0",
		With:     "it carries the code of the first container, in the pod spec's order, that terminated with a non-zero code (0 when none did; init containers are left out, as in Volcano)",
		Upstream: "volcano#5452",
		Owner:    "cache.firstFailedContainerExitCode",
		Tests:    []string{"cache.TestExitCodeFirstFailedContainer", "lint.TestCompareExitCodeFirstFailedContainer", "vcjobtest/scenario/testdata/semantics/exit-code-first-failed-container.txt", "vcjobtest/scenario/testdata/event-failed-uses-first-container-exit-code.txt"}},
	{ID: FailurePolicyBeforeSync, Name: "failure-policy-before-sync", Kind: Correction,
		Volcano:  "a sync of a Running job counts a pod failure whose own request still waits in the queue: it may finish the job, and the failure's policy (RestartJob) then finds a finished job and never runs",
		With:     "a step asked to sync a Running job runs, instead, the policy of a current pod failure the cache shows and no step acted on (worker.Record.FailureFirst names it)",
		Detail:   "The cache holds a failure as soon as the informer delivers it, while the pod's PodFailed request waits behind earlier ones. After a controller restart the job's add queues its sync first, so a pod failing as the controller starts loses its restart. The failure acted on first is the first Failed pod by name that is not terminating, not out of sync, of the job's UID and current version, whose failure a policy acts on at once (a policy with a timeout is left to the pod's own request). Every action but SyncJob takes a job out of Running, deletes the pod or bumps the version, so no step has acted on such a failure; the pod's own request then finds an older version and syncs.",
		Upstream: "volcano#3967",
		Owner:    "worker.unhandledFailure",
		Tests:    []string{"worker.TestFailurePolicyBeforeSync", "lint.TestCompareFailurePolicyBeforeSync", "vcjobtest/scenario/testdata/semantics/failure-policy-before-sync.txt", "vcjobtest/scenario/testdata/event-failed-after-controller-restart-finishes-job.txt"}},
	{ID: CacheByJobUID, Name: "cache-by-job-uid", Kind: Correction,
		Volcano:  "the cache keys jobs by namespace/name: a job deleted and created again under its name takes over the old job's entry, counts the old pods still being deleted (a Succeeded one completes the new job's task) and does not create the pods whose names they hold",
		With:     "a pod is filed under its job by the job's UID: the old job's pods and their late events never touch the new job's info",
		Detail:   "Volcano's report is a stale cleanup of the old job deleting the new job's entry by key, after which the new job's pods are never created; vcjob's cache has no cleanup queue, so that path does not reproduce, and the shared entry does. Under the correction the pods of other jobs an entry holds (an earlier job's, or pods that came before their job) are dropped when the job is added, or when a relist shows it as an update of the job it replaced; a late event of an old pod never changes the new job's info (its delete is OutOfSync, its request names the old UID, and the step syncs the new job). Pods or jobs without a UID are filed by name. The new job tries to create the held names at each sync (AlreadyExists is taken as done) and creates them once the old pods are gone.",
		Upstream: "volcano#5973",
		Owner:    "cache.(*Cache).dropOtherJobs",
		Tests:    []string{"cache.TestCacheByJobUID", "lint.TestCompare", "vcjobtest/scenario/testdata/semantics/cache-by-job-uid.txt", "vcjobtest/scenario/testdata/recreated-job-counts-old-pods.txt"}},
	{ID: KillStatusFirst, Name: "kill-status-first", Kind: Correction,
		Volcano: "a kill writes the job's new phase, retry count and version only after it marks and deletes the pods: a controller stopped in between leaves the pods marked or gone and the job in its old phase, and the action is never taken",
		With:    "a kill into Restarting, Aborting, Completing or Terminating, or one that counts a retry, writes that status before its first pod delete, so the next controller finds the job in the kill's phase and kills again",
		Detail:  "The status written first holds the phase, retryCount, status.version, the transition time and condition, and the counts as stored; the counts follow after the deletes, as Volcano writes them: one more status write, only for such a kill. Aborting, Completing and Terminating kill again on any request; in Restarting the retry is counted and a sync deletes the pods already marked. A kill that only bumps the version, and a phase the counts decide (Pending or Failed after Restarting, a finished phase once idle), keep Volcano's order.",
		Owner:   "statemachine.(*KillPlan).StatusFirst",
		Tests:   []string{"statemachine.TestKillStatusFirst", "statemachine.TestKillStatusFirstSurvivesAStop", "vcjobtest/scenario/testdata/perturbation.md"}},

	{ID: ExitCodeSets, Name: "exit-code-sets", Kind: Extension,
		Volcano: "a policy matches one exact exit code",
		With:    "In and NotIn over codes and ranges (128-255), as Kubernetes' pod failure policy, tried after a disruption and before the job's own policies",
		Enable:  "vcjob.dev/policy: {exitCodes: [{task: worker, operator: In, values: [\"128-255\"], action: RestartPod}]}",
		Owner:   "policy.ExitCodeRule.Matches",
		Tests:   []string{"policy.TestExitCodeRuleMatches", "policy.TestResolveWithExtensions", "vcjobtest/scenario/testdata/extension-exit-code-ranges.txt"}},
	{ID: Disruptions, Name: "disruptions", Kind: Extension,
		Volcano: "an evicted or preempted pod is PodEvicted or PodFailed like any other and spends a retry",
		With:    "a pod with a true DisruptionTarget condition (request.Request.Disrupted) restarts without counting a retry (the transition table's keep-retries rows)",
		Enable:  "vcjob.dev/policy: {disruptions: {action: RestartJob}}",
		Owner:   "policy.Disrupted",
		Tests:   []string{"policy.TestDisrupted", "policy.TestResolveWithExtensions", "vcjobtest/scenario/testdata/extension-disruption-keeps-retries.txt"}},
	{ID: Deadline, Name: "deadline", Kind: Extension,
		Volcano:  "none: a job may run for ever",
		With:     "TerminateJob (or AbortJob) once the job has been active longer than `after` from its creation, restarts included; the processing step keeps it registered in the delay queue",
		Upstream: "volcano#2761",
		Enable:   "vcjob.dev/policy: {deadline: {after: 6h, action: TerminateJob}}",
		Owner:    "policy.(*DeadlineRule).Due",
		Tests:    []string{"policy.TestDeadlineAndHold", "vcjobtest/scenario/testdata/extension-deadline-terminates.txt"}},
	{ID: RestartBackoff, Name: "restart-backoff", Kind: Extension,
		Volcano: "pods are re-created at once: a crash-looping job burns its retries in seconds",
		With:    "after restart n, no pod is created before base × 2^(n−1) (capped at max, less a jitter drawn from the job's UID, so a replay is exact) past the job's entry into Restarting; the step registers a SyncJob for then",
		Enable:  "vcjob.dev/policy: {restartBackoff: {base: 10s, max: 5m, jitterPercent: 20}}",
		Owner:   "policy.(*RestartBackoff).HoldCreatesUntil",
		Tests:   []string{"policy.TestBackoffWaitProperties", "policy.TestBackoffWaitDoubles", "vcjobtest/scenario/testdata/extension-restart-backoff.txt"}},
	{ID: RetryBudget, Name: "retry-budget", Kind: Extension,
		Volcano: "maxRetry restarts over the job's whole life",
		With:    "at most `restarts` within `window`: within it a restart counts no retry, beyond it the job fails (the transition table's fail-job rows)",
		Enable:  "vcjob.dev/policy: {retryBudget: {restarts: 3, window: 1h}}",
		Owner:   "policy.Stateful",
		Tests:   []string{"policy.TestRetryBudget", "vcjobtest/scenario/testdata/extension-retry-budget.txt"}},
	{ID: Escalation, Name: "escalation", Kind: Extension,
		Volcano: "a RestartPod policy restarts the pod every time",
		With:    "per pod, RestartPod up to `restartPod` times, then RestartTask up to `restartTask` times, then RestartJob",
		Enable:  "vcjob.dev/policy: {escalation: {restartPod: 2, restartTask: 1}}",
		Owner:   "policy.Stateful",
		Tests:   []string{"policy.TestEscalation", "vcjobtest/scenario/testdata/extension-escalation.txt"}},

	{ID: DeterministicClaimNames, Name: "deterministic-claim-names", Kind: Choice,
		Volcano: "a volume without a claim name gets <job>-pvc-<12 random>, written back into spec.volumes with an update of the job",
		With:    "it gets <job>-volume-<i>, and nothing is written back: plans are reproducible, and there is one API write less that could conflict with the user's edits",
		Enable:  "statemachine.Choices{DeterministicClaimNames: true}",
		Owner:   "statemachine.Choices.DeterministicClaimNames",
		Tests:   []string{"statemachine.TestSyncRunsPluginHooks", "statemachine.TestClaimsAsVolcanoNamesThem"}},
	{ID: RequestsOnlyMinResources, Name: "requests-only-min-resources", Kind: Choice,
		Volcano: "the PodGroup's minResources charge each pod as the quota evaluator charges it (count/pods, pods, requests.*, limits.*)",
		With:    "they hold only the pods' requests, what a scheduler reads",
		Enable:  "statemachine.Choices{RequestsOnlyMinResources: true}",
		Owner:   "podgroup.SizeByRequests",
		Tests:   []string{"podgroup.TestDesired", "podgroup.TestMinResourcesChargesQuota"}},
	{ID: StrictPluginArguments, Name: "strict-plugin-arguments", Kind: Choice,
		Volcano: "an unknown plugin flag is logged, and the flags after it are not read",
		With:    "it fails the job's syncs at once",
		Enable:  "plugins.WithStrictArguments()",
		Owner:   "plugins.WithStrictArguments",
		Tests:   []string{"plugins.TestVolcanoDefaultsGoPastBadArguments", "plugins.TestBuildErrors"}},
	{ID: ReplacedEnv, Name: "replaced-env", Kind: Choice,
		Volcano: "a variable the pod template sets already gets a second entry from a plugin; the container sees the last",
		With:    "one value per name, and OnPodCreate is idempotent",
		Enable:  "plugins.WithReplacedEnv()",
		Owner:   "plugins.WithReplacedEnv",
		Tests:   []string{"plugins.TestVolcanoDefaultsAppendEnvAndLeaveObjectsUnlabelled"}},
	{ID: LabelledPluginObjects, Name: "labelled-plugin-objects", Kind: Choice,
		Volcano: "plugin Services, ConfigMaps, Secrets and NetworkPolicies carry no labels",
		With:    "they carry volcano.sh/job-name, so they can be listed or cleaned up by job",
		Enable:  "plugins.WithObjectLabels()",
		Owner:   "plugins.WithObjectLabels",
		Tests:   []string{"plugins.TestVolcanoDefaultsAppendEnvAndLeaveObjectsUnlabelled"}},
	{ID: AdoptExistingJob, Name: "adopt-existing-job", Kind: Choice,
		Volcano: "a run whose job exists already: the create conflicts and the Get of the existing job names no namespace, so every sync fails until the job is deleted, then the run starts again",
		With:    "the run counts as started",
		Enable:  "cronjob.Options{AdoptExistingJob: true}",
		Owner:   "cronjob.Options.AdoptExistingJob",
		Tests:   []string{"cronjob.TestCreate"}},
	{ID: MatchRunsByScheduledTime, Name: "match-runs-by-scheduled-time", Kind: Choice,
		Volcano: "a run is known only by the job name derived from its time",
		With:    "a job whose scheduled-timestamp annotation is the due time is the run's, under any name",
		Enable:  "cronjob.Options{MatchRunsByScheduledTime: true}",
		Owner:   "cronjob.Options.MatchRunsByScheduledTime",
		Tests:   []string{"cronjob.TestCreate"}},
	{ID: RecordDeletedRuns, Name: "record-deleted-runs", Kind: Choice,
		Volcano: "a job deleted by the history limit is forgotten; a run whose status write was lost starts again",
		With:    "the deleted job's scheduled time moves lastScheduleTime up",
		Enable:  "cronjob.Options{RecordDeletedRuns: true}",
		Owner:   "cronjob.Options.RecordDeletedRuns",
		Tests:   []string{"cronjob.TestRecordDeletedRuns"}},
	{ID: RefuseMachineZones, Name: "refuse-machine-zones", Kind: Choice,
		Volcano: "timeZone \"\" is UTC and \"Local\" the controller's zone",
		With:    "both are refused, so the same cronjob runs at the same times on any controller",
		Enable:  "cronjob.Options{RefuseMachineZones: true}",
		Owner:   "cronjob.Options.RefuseMachineZones",
		Tests:   []string{"cronjob.TestRefuseMachineZones"}},
	{ID: RejectBareZonePrefix, Name: "reject-bare-zone-prefix", Kind: Choice,
		Volcano: "a schedule that is only TZ=<zone> makes the sync panic",
		With:    "the sync fails as for any unparseable schedule",
		Enable:  "cronjob.Options{RejectBareZonePrefix: true}",
		Owner:   "cronjob.Options.RejectBareZonePrefix",
		Tests:   []string{"cronjob.TestDecideSchedule"}},
	{ID: VisitEveryActiveReference, Name: "visit-every-active-reference", Kind: Choice,
		Volcano: "removing entries from status.active while ranging over it skips the entry after each one removed",
		With:    "each entry is checked",
		Enable:  "cronjob.Options{VisitEveryActiveReference: true}",
		Owner:   "cronjob.Options.VisitEveryActiveReference",
		Tests:   []string{"cronjob.TestCheckActive", "cronjob.TestConcurrency"}},
	{ID: ReportFailedStatusWrite, Name: "report-failed-status-write", Kind: Choice,
		Volcano: "a failed status write is logged: no error, no requeue",
		With:    "the sync fails, and the write is retried with backoff",
		Enable:  "cronjob.Options{ReportFailedStatusWrite: true}",
		Owner:   "cronjob.Options.ReportFailedStatusWrite",
		Tests:   []string{"cronjob.TestFailedStatusWrite"}},
}
