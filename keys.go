package vcjob

// API group, version and kind of the Job.
const (
	GroupName  = "batch.volcano.sh"
	Version    = "v1alpha1"
	APIVersion = GroupName + "/" + Version
	JobKind    = "Job"
)

// Well-known annotation and label keys Volcano puts on pods and reads from
// jobs.
const (
	TaskSpecKey             = "volcano.sh/task-spec"
	TaskIndexKey            = "volcano.sh/task-index"
	JobNameKey              = "volcano.sh/job-name"
	JobNamespaceKey         = "volcano.sh/job-namespace"
	QueueNameKey            = "volcano.sh/queue-name"
	JobVersionKey           = "volcano.sh/job-version"
	JobRetryCountKey        = "volcano.sh/job-retry-count"
	TemplateUIDKey          = "volcano.sh/template-uid"
	PodGroupNameKey         = "scheduling.k8s.io/group-name"
	PartitionIDKey          = "volcano.sh/partition-id"
	NumaPolicyKey           = "volcano.sh/numa-topology-policy"
	PodOutOfSyncKey         = "volcano.sh/controller-out-of-sync"
	PreemptableKey          = "volcano.sh/preemptable"
	CooldownTimeKey         = "volcano.sh/cooldown-time"
	RevocableZoneKey        = "volcano.sh/revocable-zone"
	JDBMinAvailableKey      = "volcano.sh/jdb-min-available"
	JDBMaxUnavailableKey    = "volcano.sh/jdb-max-unavailable"
	CronJobScheduledTimeKey = "volcano.sh/cronjob-scheduled-timestamp"
)
