package scenario

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/worker"
)

// oneShot is a job of one pod with a ttl of 30 seconds: the pod's success
// completes it.
const oneShot = `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: once, namespace: ns}
spec:
  minAvailable: 1
  ttlSecondsAfterFinished: 30
  tasks:
  - name: t
    replicas: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: busybox}]
`

func runScript(t *testing.T, manifest, script string, o Observer) error {
	t.Helper()
	cmds, err := Parse(strings.NewReader(script))
	if err != nil {
		t.Fatal(err)
	}
	job, err := Load([]byte(manifest), "")
	if err != nil {
		t.Fatal(err)
	}
	return Run(job, cmds, o)
}

// Once the garbage collector deleted the job, a command about it is an
// error naming the line; time may still pass.
func TestGCDeletedJobTakesNoCommand(t *testing.T) {
	var out bytes.Buffer
	err := runScript(t, oneShot, "podgroup Inqueue\nstart all\nsucceed t-0\nadvance 1m\nadvance 1m\nstart all\n", NewText(&out))
	want := `line 6: "start all": the job is gone: the garbage collector deleted it at +30s`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s\n%s", err, want, out.String())
	}
	if !strings.Contains(out.String(), "  gc       Completed at +0s, ttlSecondsAfterFinished 30: expired at +30s; delete job ns/once (propagation Foreground, precondition uid uid-once)\n> advance 1m   [+1m0s]\n") {
		t.Errorf("transcript:\n%s", out.String())
	}
}

// The JSON transcript carries each look, with the delete and its options.
func TestGCJSON(t *testing.T) {
	var out bytes.Buffer
	if err := runScript(t, oneShot, "podgroup Inqueue\nstart all\nsucceed t-0\nadvance 1m\n", NewJSON(&out)); err != nil {
		t.Fatal(err)
	}
	var looks []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if gc, ok := v["gc"].(map[string]any); ok {
			looks = append(looks, gc)
		}
	}
	if len(looks) != 2 || looks[0]["next"] != "requeue-after" || looks[0]["after"] != "30s" || looks[1]["next"] != "done" {
		t.Fatalf("looks %v", looks)
	}
	del, _ := json.Marshal(looks[1]["delete"])
	if string(del) != `{"name":"once","namespace":"ns","options":{"preconditions":{"uid":"uid-once"},"propagationPolicy":"Foreground"}}` {
		t.Errorf("delete %s", del)
	}
}

// changesOnly is an Observer that is no GCObserver: it sees the pods go.
type changesOnly struct{ gone []string }

func (c *changesOnly) Command(int, string, time.Time)           {}
func (c *changesOnly) Record(worker.Record)                     {}
func (c *changesOnly) PodGroup(string, time.Time)               {}
func (c *changesOnly) End(string)                               {}
func (c *changesOnly) Recorded([]record.Event, time.Time)       {}
func (c *changesOnly) Requeued(request.Request, int, time.Time) {}
func (c *changesOnly) Changes(chs []memcluster.Change, _ time.Time) {
	for _, ch := range chs {
		if ch.Type == memcluster.Deleted && ch.OldPod != nil {
			c.gone = append(c.gone, ch.OldPod.Name)
		}
	}
}

// An observer that is not told the garbage collector's looks still sees
// what its delete removed.
func TestGCWithoutGCObserver(t *testing.T) {
	o := &changesOnly{}
	if err := runScript(t, oneShot, "podgroup Inqueue\nstart all\nsucceed t-0\nadvance 1m\n", o); err != nil {
		t.Fatal(err)
	}
	if len(o.gone) != 1 || o.gone[0] != "once-t-0" {
		t.Fatalf("pods gone: %v", o.gone)
	}
}

// A ttl of 0 deletes the job in the same instant it finishes; a job
// without a ttl is never looked at.
func TestGCZeroAndNone(t *testing.T) {
	var out bytes.Buffer
	zero := strings.Replace(oneShot, "ttlSecondsAfterFinished: 30", "ttlSecondsAfterFinished: 0", 1)
	if err := runScript(t, zero, "podgroup Inqueue\nstart all\nsucceed t-0\n", NewText(&out)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "expired at +0s; delete job ns/once") || !strings.HasSuffix(out.String(), "= job deleted by the garbage collector at +0s (Completed at +0s, ttlSecondsAfterFinished 0): nothing of it is left; delayed 0\n") {
		t.Errorf("ttl 0:\n%s", out.String())
	}
	out.Reset()
	none := strings.Replace(oneShot, "  ttlSecondsAfterFinished: 30\n", "", 1)
	if err := runScript(t, none, "podgroup Inqueue\nstart all\nsucceed t-0\nadvance 720h\n", NewText(&out)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "gc ") || strings.Contains(out.String(), "ttlSecondsAfterFinished") {
		t.Errorf("no ttl:\n%s", out.String())
	}
}

// A run that ends before the ttl runs out says when the job goes.
func TestGCSummaryBeforeExpiry(t *testing.T) {
	var out bytes.Buffer
	if err := runScript(t, oneShot, "podgroup Inqueue\nstart all\nsucceed t-0\nadvance 10s\n", NewText(&out)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "; ttlSecondsAfterFinished 30: the garbage collector deletes the job at +30s\n") {
		t.Errorf("summary:\n%s", out.String())
	}
}
