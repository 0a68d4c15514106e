// Package admissioncases reads testdata/volcano-e2e-admission.yaml, the
// admission cases of Volcano's own end-to-end suites as facts (the job
// each submits, Volcano's verdict, the field vcjob must name, the fields
// the mutating webhook must fill in), for the two tests that check them:
// validation's, on vcjob.SetDefaults and validation.ValidateJob, and the
// example controller's, through its webhooks on a real API server.
package admissioncases

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/validation"
)

// Case is one It of Volcano's suites.
type Case struct {
	ID      string `json:"id"`
	Suite   string `json:"suite"`
	It      string `json:"it"`
	Source  string `json:"source"`
	Note    string `json:"note,omitempty"`
	Verdict string `json:"verdict"`
	// Field is a path an error of vcjob's names, for a refused job.
	Field string `json:"field,omitempty"`
	// Volcano is the text Volcano's test looks for in the refusal.
	Volcano string `json:"volcano,omitempty"`
	// Queues are the queues that exist, Open; nil: no queue lookup.
	Queues []string `json:"queues,omitempty"`
	// Update are edits of the stored job; the verdict is the update's.
	Update []string `json:"update,omitempty"`
	// Want are fields of the admitted job (Get's paths).
	Want map[string]string `json:"want,omitempty"`
	Job  json.RawMessage   `json:"job"`
}

// The verdicts.
const (
	Allowed = "allowed"
	Refused = "refused"
)

// Load reads the cases.
func Load(path string) ([]Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cases []Case
	if err := yaml.UnmarshalStrict(data, &cases); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, c := range cases {
		if c.Verdict != Allowed && c.Verdict != Refused {
			return nil, fmt.Errorf("%s: case %s: verdict %q", path, c.ID, c.Verdict)
		}
	}
	return cases, nil
}

// Name is how tests name the case: suite and id.
func (c Case) Name() string { return c.Suite + "-" + c.ID }

// Options are the validation options the case needs: a queue lookup
// when it names the queues that exist.
func (c Case) Options() validation.Options {
	if c.Queues == nil {
		return validation.Options{}
	}
	return validation.Options{Queues: openQueues(c.Queues)}
}

// openQueues is a queue lookup where the named queues exist, Open, and
// have no children.
type openQueues []string

func (q openQueues) Queue(name string) (string, bool, error) {
	if slices.Contains(q, name) {
		return validation.QueueStateOpen, true, nil
	}
	return "", false, nil
}

func (q openQueues) Children(string) (int, error) { return 0, nil }

// Apply makes the case's update edits on job.
func Apply(job *vcjob.Job, edits []string) error {
	for _, e := range edits {
		k, v, ok := strings.Cut(e, "=")
		if !ok {
			return fmt.Errorf("edit %q: want FIELD=VALUE", e)
		}
		switch {
		case k == "minAvailable":
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return fmt.Errorf("edit %q: %w", e, err)
			}
			job.Spec.MinAvailable = int32(n)
		case k == "queue":
			job.Spec.Queue = v
		case k == "addTask":
			name, reps, _ := strings.Cut(v, ":")
			n, err := strconv.ParseInt(reps, 10, 32)
			if err != nil || len(job.Spec.Tasks) == 0 {
				return fmt.Errorf("edit %q: want addTask=NAME:REPLICAS on a job with a task", e)
			}
			t := *job.Spec.Tasks[0].DeepCopy()
			t.Name, t.Replicas, t.MinAvailable = name, int32(n), nil
			job.Spec.Tasks = append(job.Spec.Tasks, t)
		default:
			i, field, err := taskField(k)
			if err != nil || field != "replicas" || i >= len(job.Spec.Tasks) {
				return fmt.Errorf("edit %q: unknown field", e)
			}
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return fmt.Errorf("edit %q: %w", e, err)
			}
			job.Spec.Tasks[i].Replicas = int32(n)
		}
	}
	return nil
}

// taskField splits "tasks[i].field".
func taskField(k string) (int, string, error) {
	rest, ok := strings.CutPrefix(k, "tasks[")
	idx, field, ok2 := strings.Cut(rest, "].")
	i, err := strconv.Atoi(idx)
	if !ok || !ok2 || err != nil {
		return 0, "", fmt.Errorf("not tasks[i].field: %q", k)
	}
	return i, field, nil
}

// Get reads a field of a job for Want: spec.queue, spec.schedulerName,
// spec.maxRetry, spec.minAvailable, tasks[i].name, .replicas,
// .minAvailable, .maxRetry; plugins (the plugin names, sorted, space
// separated), plugins.NAME (its arguments, space separated).
func Get(job *vcjob.Job, path string) (string, error) {
	s := job.Spec
	switch path {
	case "spec.queue":
		return s.Queue, nil
	case "spec.schedulerName":
		return s.SchedulerName, nil
	case "spec.maxRetry":
		return strconv.Itoa(int(s.MaxRetry)), nil
	case "spec.minAvailable":
		return strconv.Itoa(int(s.MinAvailable)), nil
	case "plugins":
		var names []string
		for n := range s.Plugins {
			names = append(names, n)
		}
		sort.Strings(names)
		return strings.Join(names, " "), nil
	}
	if name, ok := strings.CutPrefix(path, "plugins."); ok {
		args, present := s.Plugins[name]
		if !present {
			return "", fmt.Errorf("no plugin %s", name)
		}
		return strings.Join(args, " "), nil
	}
	i, field, err := taskField(path)
	if err != nil || i >= len(s.Tasks) {
		return "", fmt.Errorf("unknown field %q", path)
	}
	t := s.Tasks[i]
	switch field {
	case "name":
		return t.Name, nil
	case "replicas":
		return strconv.Itoa(int(t.Replicas)), nil
	case "maxRetry":
		return strconv.Itoa(int(t.MaxRetry)), nil
	case "minAvailable":
		if t.MinAvailable == nil {
			return "", nil
		}
		return strconv.Itoa(int(*t.MinAvailable)), nil
	}
	return "", fmt.Errorf("unknown field %q", path)
}
