package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/ttl"
)

// ttlAreas are the areas a TTL case is compared in (FORMAT-ttl.md);
// processJob is split by what it is compared on.
var ttlAreas = []string{"finished", "needsCleanup", "enqueueOnAdd", "timeLeft", "expired", "freshExpired",
	"processJob.error", "processJob.requeued", "processJob.delete", "processJob.calls"}

// ttlCase is one line of a vectors-ttl-*.jsonl file.
type ttlCase struct {
	Name   string     `json:"name"`
	Tags   []string   `json:"tags"`
	Now    time.Time  `json:"now"`
	Job    *vcjob.Job `json:"job"`
	Fresh  *vcjob.Job `json:"fresh"`
	Expect ttlExpect  `json:"expect"`
}

// ttlExpect is what the garbage collector decided; the replay fills one in
// from package ttl and the two are compared field by field.
type ttlExpect struct {
	Finished      bool       `json:"finished"`
	NeedsCleanup  bool       `json:"needsCleanup"`
	EnqueueOnAdd  bool       `json:"enqueueOnAdd"`
	TimeLeft      *float64   `json:"timeLeft"`
	TimeLeftNs    *int64     `json:"timeLeftNs"`
	TimeLeftError string     `json:"timeLeftError,omitempty"`
	Expired       bool       `json:"expired"`
	ExpiredError  string     `json:"expiredError,omitempty"`
	FreshExpired  *bool      `json:"freshExpired"`
	ProcessJob    ttlProcess `json:"processJob"`
}

// ttlProcess is one processJob run.
type ttlProcess struct {
	Error     bool       `json:"error"`
	ErrorText string     `json:"errorText,omitempty"`
	Requeued  []string   `json:"requeued"`
	Delete    *ttlDelete `json:"delete"`
	Calls     []string   `json:"calls"`
}

// ttlDelete is the Delete call processJob sent.
type ttlDelete struct {
	Namespace string               `json:"namespace"`
	Name      string               `json:"name"`
	Options   metav1.DeleteOptions `json:"options"`
}

// ttlRequired are the keys every case and its expectation carry: a
// missing one would otherwise read as false or null and test nothing.
var ttlRequired = map[string][]string{
	"":                  {"name", "now", "job", "fresh", "expect"},
	"expect":            {"finished", "needsCleanup", "enqueueOnAdd", "timeLeft", "timeLeftNs", "expired", "freshExpired", "processJob"},
	"expect.processJob": {"error", "requeued", "delete", "calls"},
}

// decodeTTLCase reads one line strictly: no unknown key anywhere, every
// required key present.
func decodeTTLCase(line []byte) (*ttlCase, error) {
	var c ttlCase
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(line, &top); err != nil {
		return nil, err
	}
	var expect, process map[string]json.RawMessage
	_ = json.Unmarshal(top["expect"], &expect)
	_ = json.Unmarshal(expect["processJob"], &process)
	for where, obj := range map[string]map[string]json.RawMessage{"": top, "expect": expect, "expect.processJob": process} {
		for _, k := range ttlRequired[where] {
			if _, ok := obj[k]; !ok {
				if where != "" {
					k = where + "." + k
				}
				return nil, fmt.Errorf("no %q key", k)
			}
		}
	}
	if c.Job == nil {
		return nil, fmt.Errorf("job is null")
	}
	if c.Expect.ProcessJob.Requeued == nil || c.Expect.ProcessJob.Calls == nil {
		return nil, fmt.Errorf("expect.processJob: requeued and calls must be lists")
	}
	return &c, nil
}

// runTTLFile replays every garbage-collector decision of a file through
// package ttl.
func runTTLFile(path string, out io.Writer, verbose bool, tally *areaTally) (passed, failed int, err error) {
	f, err := openVectors(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		c, err := decodeTTLCase(sc.Bytes())
		if err != nil {
			return passed, failed, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		diff, failedAreas := diffTTL(c.Expect, replayTTL(c))
		if tally != nil {
			tally.add(failedAreas...)
			tally.cases++
		}
		if diff != "" {
			failed++
			fmt.Fprintf(out, "FAIL %s (%s:%d): %s\n", c.Name, path, line, diff)
		} else {
			passed++
			if verbose {
				fmt.Fprintf(out, "ok   %s\n", c.Name)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return passed, failed, fmt.Errorf("%s: %w", path, err)
	}
	return passed, failed, nil
}

// replayTTL asks package ttl everything the case records. processJob runs
// ttl.Process on a fake API server that holds the case's fresh job, with
// a clock that reads the case's now.
func replayTTL(c *ttlCase) ttlExpect {
	job := c.Job
	var got ttlExpect
	got.Finished = ttl.Finished(job)
	got.NeedsCleanup = ttl.NeedsCleanup(job)
	got.EnqueueOnAdd = ttl.Enqueues(job)
	if left, err := ttl.TimeLeft(job, c.Now); err != nil {
		got.TimeLeftError = err.Error()
	} else {
		ns, s := int64(left), left.Seconds()
		got.TimeLeftNs, got.TimeLeft = &ns, &s
	}
	v := ttl.Check(job, c.Now)
	got.Expired = v.Expired
	if v.Err != nil {
		got.ExpiredError = v.Err.Error()
	}
	if v.Expired && c.Fresh != nil {
		e := ttl.Check(c.Fresh, c.Now).Expired
		got.FreshExpired = &e
	}

	api := &fakeJobAPI{job: c.Fresh.DeepCopy()}
	r := ttl.Process(context.Background(), api, job.DeepCopy(), func() time.Time { return c.Now })
	p := ttlProcess{Requeued: []string{}, Calls: api.calls}
	if p.Calls == nil {
		p.Calls = []string{}
	}
	switch r.Next {
	case ttl.RequeueAfter:
		p.Requeued = append(p.Requeued, "after")
	case ttl.Retry:
		p.Error = true
		if r.Err != nil {
			p.ErrorText = r.Err.Error()
		}
	}
	if r.Delete != nil {
		p.Delete = &ttlDelete{Namespace: r.Delete.Namespace, Name: r.Delete.Name, Options: r.Delete.Options}
	}
	got.ProcessJob = p
	return got
}

// fakeJobAPI is an API server holding at most one job: the copy a re-read
// returns. It records each call as "VERB jobs NAMESPACE/NAME".
type fakeJobAPI struct {
	job   *vcjob.Job
	calls []string
}

var jobsResource = schema.GroupResource{Group: vcjob.GroupName, Resource: "jobs"}

func (a *fakeJobAPI) find(namespace, name string) *vcjob.Job {
	if a.job == nil || a.job.Namespace != namespace || a.job.Name != name {
		return nil
	}
	return a.job
}

func (a *fakeJobAPI) Get(_ context.Context, namespace, name string) (*vcjob.Job, error) {
	a.calls = append(a.calls, "get jobs "+namespace+"/"+name)
	j := a.find(namespace, name)
	if j == nil {
		return nil, apierrors.NewNotFound(jobsResource, name)
	}
	return j.DeepCopy(), nil
}

func (a *fakeJobAPI) Delete(_ context.Context, namespace, name string, opts metav1.DeleteOptions) error {
	a.calls = append(a.calls, "delete jobs "+namespace+"/"+name)
	j := a.find(namespace, name)
	if j == nil {
		return apierrors.NewNotFound(jobsResource, name)
	}
	if pre := opts.Preconditions; pre != nil && pre.UID != nil && *pre.UID != j.UID {
		return apierrors.NewConflict(jobsResource, name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s)", *pre.UID, j.UID))
	}
	a.job = nil
	return nil
}

// diffTTL compares every field of a case; first is the first difference
// ("" when none), failed the areas that differ.
func diffTTL(want, got ttlExpect) (first string, failed []string) {
	check := func(area, field string, w, g any) {
		if reflect.DeepEqual(w, g) {
			return
		}
		if !slices.Contains(failed, area) {
			failed = append(failed, area)
		}
		if first == "" {
			first = fmt.Sprintf("%s: want %s, got %s", field, show(w), show(g))
		}
	}
	check("finished", "finished", want.Finished, got.Finished)
	check("needsCleanup", "needsCleanup", want.NeedsCleanup, got.NeedsCleanup)
	check("enqueueOnAdd", "enqueueOnAdd", want.EnqueueOnAdd, got.EnqueueOnAdd)
	check("timeLeft", "timeLeftNs", want.TimeLeftNs, got.TimeLeftNs)
	check("timeLeft", "timeLeft", want.TimeLeft, got.TimeLeft)
	check("timeLeft", "timeLeftError", want.TimeLeftError, got.TimeLeftError)
	check("expired", "expired", want.Expired, got.Expired)
	check("expired", "expiredError", want.ExpiredError, got.ExpiredError)
	check("freshExpired", "freshExpired", want.FreshExpired, got.FreshExpired)
	w, g := want.ProcessJob, got.ProcessJob
	check("processJob.error", "processJob.error", w.Error, g.Error)
	check("processJob.error", "processJob.errorText", w.ErrorText, g.ErrorText)
	check("processJob.requeued", "processJob.requeued", w.Requeued, g.Requeued)
	check("processJob.delete", "processJob.delete", w.Delete, g.Delete)
	check("processJob.calls", "processJob.calls", w.Calls, g.Calls)
	return first, failed
}

// show prints a compared value as JSON, pointers followed.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
