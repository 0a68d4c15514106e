package expectations

import (
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

// A job's expectations are satisfied once each pod created for it is
// observed, or once the last create is older than the ttl; a create not
// yet observed is not sent again, one deleted since may be.
func TestPodCreations(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Unix(1000, 0))
	e := New(clk)
	e.ExpectPodCreation("ns/j-w-0", "ns/j")
	e.ExpectPodCreation("ns/j-w-1", "ns/j")
	if e.Satisfied("ns/j") || !e.PodCreationExpected("ns/j-w-0") {
		t.Fatal("two creates not observed: want the job unsatisfied and the pod expected")
	}
	if job, last := e.CreationObserved("ns/j-w-0"); job != "ns/j" || last {
		t.Fatalf("first observed = %q, %v; want the job, not the last", job, last)
	}
	if !e.PodCreationExpected("ns/j-w-0") {
		t.Error("an observed pod is no longer expected: a step's older snapshot would create it again")
	}
	if job, last := e.DeletionObserved("ns/j-w-1"); job != "ns/j" || !last {
		t.Fatalf("deletion of the other = %q, %v; want the job, the last", job, last)
	}
	if !e.Satisfied("ns/j") || e.PodCreationExpected("ns/j-w-1") {
		t.Error("want the job satisfied and the deleted pod's name free")
	}

	e.ExpectPodCreation("ns/j-w-2", "ns/j")
	clk.Step(e.TTL())
	if !e.Satisfied("ns/j") {
		t.Error("a create older than the ttl still holds the job back")
	}
	e.Expire()
	if e.PodCreationExpected("ns/j-w-0") || e.PodCreationExpected("ns/j-w-2") {
		t.Error("Expire kept creates older than the ttl")
	}
}

// A PodGroup created is expected until the informer shows it (or the ttl
// passes); one deleted until the informer shows the delete.
func TestPodGroups(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Unix(1000, 0))
	e := New(clk)
	e.ExpectPodGroupCreation("ns/j")
	if !e.PodGroupCreationExpected("ns/j") {
		t.Fatal("a created PodGroup is not expected")
	}
	e.PodGroupObserved("ns/j")
	if e.PodGroupCreationExpected("ns/j") {
		t.Error("an observed PodGroup is still expected")
	}
	e.ExpectPodGroupCreation("ns/j")
	clk.Step(e.TTL())
	if e.PodGroupCreationExpected("ns/j") {
		t.Error("a create older than the ttl is still expected")
	}

	e.ExpectPodGroupDeletion("")
	if e.PodGroupDeletionExpected("") {
		t.Error("a delete without a UID is recorded")
	}
	e.ExpectPodGroupDeletion("uid")
	if !e.PodGroupDeletionExpected("uid") {
		t.Fatal("a deleted PodGroup is not expected gone")
	}
	e.PodGroupDeletionObserved("uid")
	if e.PodGroupDeletionExpected("uid") {
		t.Error("an observed delete is still expected")
	}
}
