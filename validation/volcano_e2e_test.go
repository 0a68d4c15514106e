package validation_test

import (
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/internal/admissioncases"
	"github.com/vcjob/vcjob/manifest"
	"github.com/vcjob/vcjob/validation"
)

// TestVolcanoE2EAdmission: every admission case of Volcano's own e2e
// suites (../testdata/volcano-e2e-admission.yaml) gets Volcano's verdict
// from vcjob.SetDefaults then ValidateJob (or, for an update, from
// ValidateJobUpdate after the edits), a refusal names the case's field,
// and an admitted job has the fields the case wants. Volcano's test also
// looks for its webhook's words in a refusal; vcjob words its errors as
// field errors (the path, Kubernetes' wording), so the words are logged,
// not compared (docs/e2e.md lists both).
func TestVolcanoE2EAdmission(t *testing.T) {
	cases, err := admissioncases.Load("../testdata/volcano-e2e-admission.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	doc, err := os.ReadFile("../docs/e2e.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !strings.Contains(string(doc), "| "+c.Suite+" | "+c.ID+" | ") {
			t.Errorf("docs/e2e.md does not list %s %s", c.Suite, c.ID)
		}
		t.Run(c.Name(), func(t *testing.T) {
			job, err := manifest.DecodeJob(c.Job)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			vcjob.SetDefaults(job)
			errs := validation.ValidateJobWith(job, c.Options())
			if c.Update != nil {
				if len(errs) > 0 {
					t.Fatalf("the job to update is refused: %v", errs.ToAggregate())
				}
				old := job.DeepCopy()
				if err := admissioncases.Apply(job, c.Update); err != nil {
					t.Fatal(err)
				}
				errs = validation.ValidateJobUpdate(job, old)
			}
			checkVerdict(t, c, errs)
			for path, want := range c.Want {
				if got, err := admissioncases.Get(job, path); err != nil || got != want {
					t.Errorf("%s = %q (%v), want %q", path, got, err, want)
				}
			}
		})
	}
}

func checkVerdict(t *testing.T, c admissioncases.Case, errs field.ErrorList) {
	t.Helper()
	if c.Verdict == admissioncases.Allowed {
		if len(errs) > 0 {
			t.Fatalf("refused, Volcano admits it: %v", errs.ToAggregate())
		}
		return
	}
	if len(errs) == 0 {
		t.Fatal("admitted, Volcano refuses it")
	}
	named := false
	for _, e := range errs {
		named = named || strings.HasPrefix(e.Field, c.Field)
	}
	if !named {
		t.Errorf("no error names %s: %v", c.Field, errs.ToAggregate())
	}
	if c.Volcano != "" {
		t.Logf("Volcano's words %q; vcjob's: %v", c.Volcano, errs.ToAggregate())
	}
}
