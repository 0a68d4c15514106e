package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/vcjob/vcjob"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// ExtensionsAnnotation is the job annotation holding its policy
// extensions: a small YAML or JSON document (Extensions), decoded strictly.
// It is vcjob's own key: Volcano ignores it, and a job without it behaves
// exactly as under Volcano.
const ExtensionsAnnotation = "vcjob.dev/policy"

// Extensions are lifecycle policies Volcano does not have, on request. A
// job carries them in its ExtensionsAnnotation, or an embedder passes
// them from Go. The zero value (or nil) adds nothing.
type Extensions struct {
	// ExitCodes match a failed pod's exit code against sets and ranges.
	// They are tried, in order, after a disruption and before the job's
	// own policies; the first hit wins.
	ExitCodes []ExitCodeRule `json:"exitCodes,omitempty"`
	// Disruptions: a pod that failed or went away because it was
	// disrupted (evicted, preempted: the pod's DisruptionTarget
	// condition) is restarted without counting a retry.
	Disruptions *DisruptionRule `json:"disruptions,omitempty"`
	// Deadline ends a job that has been active longer than a duration,
	// restarts included.
	Deadline *DeadlineRule `json:"deadline,omitempty"`
	// RestartBackoff holds back the re-creation of pods after a restart.
	RestartBackoff *RestartBackoff `json:"restartBackoff,omitempty"`
	// RetryBudget allows at most Restarts restarts within Window; older
	// ones stop counting. It replaces maxRetry: a restart within the
	// budget counts no retry, one beyond it fails the job.
	RetryBudget *RetryBudget `json:"retryBudget,omitempty"`
	// Escalation turns a pod's RestartPod into RestartTask once the pod
	// has been restarted RestartPod times, and a task's RestartTask into
	// RestartJob once the task has been restarted RestartTask times.
	Escalation *Escalation `json:"escalation,omitempty"`
}

// RetryBudget is Extensions.RetryBudget.
type RetryBudget struct {
	Restarts int32           `json:"restarts"`
	Window   metav1.Duration `json:"window"`
}

// Escalation is Extensions.Escalation. The counts are kept by the caller
// (policy.History); zero escalates at once.
type Escalation struct {
	RestartPod  int32 `json:"restartPod"`
	RestartTask int32 `json:"restartTask"`
}

// ExitCodeOperator says how an ExitCodeRule's values match.
type ExitCodeOperator string

// The operators, as in the Kubernetes pod failure policy.
const (
	ExitCodeIn    ExitCodeOperator = "In"
	ExitCodeNotIn ExitCodeOperator = "NotIn"
)

// ExitCodeRule matches the exit code of a failed pod (a PodFailed
// request) of Task (every task when empty): In matches a code in Values,
// NotIn one outside them. A value is a code ("137") or an inclusive range
// ("128-255").
type ExitCodeRule struct {
	Task     string           `json:"task,omitempty"`
	Operator ExitCodeOperator `json:"operator"`
	Values   []string         `json:"values"`
	Action   vcjob.Action     `json:"action"`
}

// DisruptionRule is what a disrupted pod gets: Action (RestartPod,
// RestartTask or RestartJob; RestartJob when empty), without a retry
// counted.
type DisruptionRule struct {
	Action vcjob.Action `json:"action,omitempty"`
}

// DeadlineRule ends the job with Action (TerminateJob or AbortJob;
// TerminateJob when empty) once After has passed since it started (its
// creationTimestamp, else its earliest condition), restarts included.
type DeadlineRule struct {
	After  metav1.Duration `json:"after"`
	Action vcjob.Action    `json:"action,omitempty"`
}

// RestartBackoff: after restart n (status.retryCount n ≥ 1), pods are
// created again only Wait(n) after the job entered Restarting:
// Base × 2^(n−1), capped at Max, less a jitter of up to JitterPercent
// percent drawn from the job's UID, so two jobs spread out and a replay
// is exact.
type RestartBackoff struct {
	Base          metav1.Duration `json:"base"`
	Max           metav1.Duration `json:"max"`
	JitterPercent int32           `json:"jitterPercent,omitempty"`
}

// DecodeExtensions reads an Extensions document, YAML or JSON, strictly:
// an unknown or duplicate field is an error.
func DecodeExtensions(data []byte) (*Extensions, error) {
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("vcjob: policy extensions: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	ext := &Extensions{}
	if err := dec.Decode(ext); err != nil {
		return nil, fmt.Errorf("vcjob: policy extensions: %w", err)
	}
	return ext, nil
}

// ExtensionsOf decodes the job's ExtensionsAnnotation; nil without one.
// A job without the annotation costs one map lookup.
func ExtensionsOf(job *vcjob.Job) (*Extensions, error) {
	if job == nil {
		return nil, nil
	}
	v, ok := job.Annotations[ExtensionsAnnotation]
	if !ok {
		return nil, nil
	}
	return DecodeExtensions([]byte(v))
}

// ValidateExtensionsAnnotation decodes and validates the job's
// ExtensionsAnnotation, with field paths into the document under the
// annotation's path. It is not part of ValidateJob: Volcano's admission
// does not know the key.
func ValidateExtensionsAnnotation(job *vcjob.Job) field.ErrorList {
	path := field.NewPath("metadata", "annotations").Key(ExtensionsAnnotation)
	ext, err := ExtensionsOf(job)
	if err != nil {
		return field.ErrorList{field.Invalid(path, job.Annotations[ExtensionsAnnotation], err.Error())}
	}
	return ValidateExtensions(ext, job, path)
}

// ValidateExtensions checks ext against job (its task names) with field
// paths under path.
func ValidateExtensions(ext *Extensions, job *vcjob.Job, path *field.Path) field.ErrorList {
	if ext == nil {
		return nil
	}
	var errs field.ErrorList
	restarts := []vcjob.Action{vcjob.RestartPodAction, vcjob.RestartTaskAction, vcjob.RestartJobAction}
	for i, r := range ext.ExitCodes {
		p := path.Child("exitCodes").Index(i)
		if r.Task != "" && job != nil && job.Task(r.Task) == nil {
			errs = append(errs, field.NotFound(p.Child("task"), r.Task))
		}
		switch r.Operator {
		case ExitCodeIn, ExitCodeNotIn:
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), r.Operator, []ExitCodeOperator{ExitCodeIn, ExitCodeNotIn}))
		}
		if len(r.Values) == 0 {
			errs = append(errs, field.Required(p.Child("values"), "at least one code or range"))
		}
		for j, v := range r.Values {
			lo, hi, err := parseExitCodes(v)
			switch {
			case err != nil:
				errs = append(errs, field.Invalid(p.Child("values").Index(j), v, err.Error()))
			case r.Operator == ExitCodeIn && lo <= 0 && 0 <= hi:
				errs = append(errs, field.Invalid(p.Child("values").Index(j), v, "In cannot hold 0: a pod that exits 0 has not failed"))
			}
		}
		if !validAction(r.Action) {
			errs = append(errs, field.NotSupported(p.Child("action"), r.Action, actionNames(vcjob.PolicyActions())))
		}
	}
	if d := ext.Disruptions; d != nil && d.Action != "" && !oneOf(d.Action, restarts) {
		errs = append(errs, field.NotSupported(path.Child("disruptions", "action"), d.Action, actionNames(restarts)))
	}
	if d := ext.Deadline; d != nil {
		if d.After.Duration <= 0 {
			errs = append(errs, field.Invalid(path.Child("deadline", "after"), d.After.Duration.String(), "must be positive"))
		}
		ends := []vcjob.Action{vcjob.TerminateJobAction, vcjob.AbortJobAction}
		if d.Action != "" && !oneOf(d.Action, ends) {
			errs = append(errs, field.NotSupported(path.Child("deadline", "action"), d.Action, actionNames(ends)))
		}
	}
	if b := ext.RestartBackoff; b != nil {
		p := path.Child("restartBackoff")
		if b.Base.Duration <= 0 {
			errs = append(errs, field.Invalid(p.Child("base"), b.Base.Duration.String(), "must be positive"))
		}
		if b.Max.Duration < b.Base.Duration {
			errs = append(errs, field.Invalid(p.Child("max"), b.Max.Duration.String(), "must be at least base"))
		}
		if b.JitterPercent < 0 || b.JitterPercent > 100 {
			errs = append(errs, field.Invalid(p.Child("jitterPercent"), b.JitterPercent, "must be between 0 and 100"))
		}
	}
	if b := ext.RetryBudget; b != nil {
		p := path.Child("retryBudget")
		if b.Restarts < 0 {
			errs = append(errs, field.Invalid(p.Child("restarts"), b.Restarts, "must not be negative"))
		}
		if b.Window.Duration <= 0 {
			errs = append(errs, field.Invalid(p.Child("window"), b.Window.Duration.String(), "must be positive"))
		}
	}
	if e := ext.Escalation; e != nil {
		p := path.Child("escalation")
		if e.RestartPod < 0 {
			errs = append(errs, field.Invalid(p.Child("restartPod"), e.RestartPod, "must not be negative"))
		}
		if e.RestartTask < 0 {
			errs = append(errs, field.Invalid(p.Child("restartTask"), e.RestartTask, "must not be negative"))
		}
	}
	return errs
}

func validAction(a vcjob.Action) bool { return oneOf(a, vcjob.PolicyActions()) }

func oneOf(a vcjob.Action, set []vcjob.Action) bool {
	for _, s := range set {
		if a == s {
			return true
		}
	}
	return false
}

func actionNames(as []vcjob.Action) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = string(a)
	}
	return out
}

// ParseExitCodes reads an ExitCodeRule value: a code ("137") or an
// inclusive range ("128-255").
func ParseExitCodes(v string) (lo, hi int32, err error) { return parseExitCodes(v) }

func parseExitCodes(v string) (lo, hi int32, err error) {
	a, b, isRange := strings.Cut(strings.TrimSpace(v), "-")
	l, err := strconv.ParseInt(strings.TrimSpace(a), 10, 32)
	if err != nil {
		return 0, 0, fmt.Errorf("not a code or a range of codes")
	}
	if !isRange {
		return int32(l), int32(l), nil
	}
	h, err := strconv.ParseInt(strings.TrimSpace(b), 10, 32)
	if err != nil {
		return 0, 0, fmt.Errorf("not a code or a range of codes")
	}
	if h < l {
		return 0, 0, fmt.Errorf("the range ends before it starts")
	}
	return int32(l), int32(h), nil
}

// Matches reports whether the rule matches exit code code of a pod of
// task. Values that do not parse match nothing.
func (r ExitCodeRule) Matches(task string, code int32) bool {
	if r.Task != "" && r.Task != task {
		return false
	}
	in := false
	for _, v := range r.Values {
		lo, hi, err := parseExitCodes(v)
		if err == nil && lo <= code && code <= hi {
			in = true
			break
		}
	}
	switch r.Operator {
	case ExitCodeIn:
		return in
	case ExitCodeNotIn:
		return !in
	}
	return false
}

// ActionOf is the rule's action, RestartJob when empty.
func (d *DisruptionRule) ActionOf() vcjob.Action {
	if d.Action == "" {
		return vcjob.RestartJobAction
	}
	return d.Action
}

// ActionOf is the rule's action, TerminateJob when empty.
func (d *DeadlineRule) ActionOf() vcjob.Action {
	if d.Action == "" {
		return vcjob.TerminateJobAction
	}
	return d.Action
}

// Due is when the job's deadline falls: After past its start (its
// creationTimestamp, else its earliest condition); ok is false when the
// job has neither yet.
func (d *DeadlineRule) Due(job *vcjob.Job) (time.Time, bool) {
	start := job.CreationTimestamp.Time
	if start.IsZero() {
		for _, c := range job.Status.Conditions {
			if c.LastTransitionTime != nil && (start.IsZero() || c.LastTransitionTime.Time.Before(start)) {
				start = c.LastTransitionTime.Time
			}
		}
	}
	if start.IsZero() {
		return time.Time{}, false
	}
	return start.Add(d.After.Duration), true
}

// Wait is the backoff before pods are created again after restart n (n ≥
// 1; 0 for n < 1), for the job of the given UID: Base × 2^(n−1) capped at
// Max, less the UID's jitter. It never shrinks as n grows and never
// exceeds Max.
func (b *RestartBackoff) Wait(n int32, uid string) time.Duration {
	if n < 1 || b.Base.Duration <= 0 {
		return 0
	}
	w := b.Base.Duration
	for i := int32(1); i < n && w < b.Max.Duration; i++ {
		if w > b.Max.Duration/2 {
			w = b.Max.Duration // doubling would pass the cap (or overflow)
			break
		}
		w *= 2
	}
	if w > b.Max.Duration {
		w = b.Max.Duration
	}
	if b.JitterPercent > 0 && b.JitterPercent <= 100 {
		h := fnv.New64a()
		h.Write([]byte(uid))
		// The same fraction for every n of one job, so waits never shrink.
		frac := h.Sum64() % 1000
		w -= time.Duration(float64(w) * float64(b.JitterPercent) / 100 * float64(frac) / 1000)
	}
	return w
}

// RestartedAt is when the job last entered Restarting (its Restarting
// condition); ok is false when it never has.
func RestartedAt(job *vcjob.Job) (time.Time, bool) {
	for _, c := range job.Status.Conditions {
		if c.Status == vcjob.Restarting && c.LastTransitionTime != nil {
			return c.LastTransitionTime.Time, true
		}
	}
	return time.Time{}, false
}

// HoldCreatesUntil is when, under b, the job's pods may be created again
// after its last restart; ok is false when nothing is held at now.
func (b *RestartBackoff) HoldCreatesUntil(job *vcjob.Job, now time.Time) (time.Time, bool) {
	if b == nil || job.Status.RetryCount < 1 {
		return time.Time{}, false
	}
	at, ok := RestartedAt(job)
	if !ok {
		return time.Time{}, false
	}
	until := at.Add(b.Wait(job.Status.RetryCount, string(job.UID)))
	return until, now.Before(until)
}

// Disrupted reports whether the pod carries a true DisruptionTarget
// condition: the kubelet, the scheduler or the eviction API disrupted it.
func Disrupted(pod *corev1.Pod) bool {
	if pod == nil {
		return false
	}
	for i := range pod.Status.Conditions {
		c := &pod.Status.Conditions[i]
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
