package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/vcjob/vcjob/record"
)

const publicVectorsV2 = "testdata/vectors-v2-public.jsonl.gz"

// TestPublicVectorsV2 replays Volcano's recorded SyncJob steps and
// compares every object written; every case must pass, each way.
func TestPublicVectorsV2(t *testing.T) {
	if _, err := os.Stat(publicVectorsV2); err != nil {
		t.Fatalf("no vectors at %s: %v", publicVectorsV2, err)
	}
	for _, mode := range []Mode{Direct, ThroughStep} {
		for _, recount := range []bool{false, true} {
			opts := Options{Mode: mode, Recount: recount}
			var out bytes.Buffer
			tally := newAreaTally("job step (v2, v3)", areas, optionalAreas...)
			passed, failed, err := runFile(publicVectorsV2, opts, &out, false, tally)
			if err != nil {
				t.Fatal(err)
			}
			if failed > 0 || passed == 0 || tally.cases != passed {
				t.Fatalf("%+v: %d passed, %d failed:\n%s", opts, passed, failed, out.String())
			}
		}
	}
}

// fullCase is the first public v2 case that writes something in every
// area, replayed.
func fullCase(t *testing.T) (*Case, Got) {
	f, err := openVectors(publicVectorsV2)
	if err != nil {
		t.Fatalf("no vectors at %s: %v", publicVectorsV2, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		e := c.Expect
		if len(e.RawCreatedPods) == 0 || len(e.PluginObjects) == 0 || len(e.PVCs) == 0 || len(e.JobSpecVolumes) == 0 || string(e.PodGroup) == "null" {
			continue
		}
		if err := c.decodeExpectations(); err != nil {
			t.Fatal(err)
		}
		got, err := Replay(&c, Options{Mode: Direct})
		if err != nil {
			t.Fatal(err)
		}
		if first, _ := diffV2(&c, c.Expect, got, got.input, got.written); first != "" {
			t.Fatalf("%s does not pass: %s", c.Name, first)
		}
		return &c, got
	}
	t.Skip("no case writes in every area")
	return nil, Got{}
}

// TestDiffV2SeesEachArea: a change in any area of what the library wrote
// is reported in that area, so a passing run means agreement.
func TestDiffV2SeesEachArea(t *testing.T) {
	c, base := fullCase(t)
	edit := func(raw []byte, from, to string) []byte {
		if !bytes.Contains(raw, []byte(from)) {
			t.Fatalf("%q not in %s", from, raw)
		}
		return bytes.Replace(raw, []byte(from), []byte(to), 1)
	}
	mutations := map[string]func(g *Got){
		"status": func(g *Got) { n := *g.StatusWrites + 1; g.StatusWrites = &n },
		"createdPods": func(g *Got) {
			pods := slices.Clone(g.RawCreatedPods)
			pods[0] = edit(pods[0], `"containers":[{`, `"containers":[{"tty":true,`)
			g.RawCreatedPods = pods
		},
		"pluginObjects": func(g *Got) { g.PluginObjects = g.PluginObjects[1:] },
		"podGroup":      func(g *Got) { g.PodGroup = edit(slices.Clone(g.PodGroup), `"minMember":`, `"minMember":1`) },
		"minResources":  func(g *Got) { g.MinResources = edit(slices.Clone(g.MinResources), `"pods":"`, `"pods":"1`) },
		"pvcs":          func(g *Got) { g.PVCs = nil },
		"controlledResources": func(g *Got) {
			g.ControlledResources = map[string]string{"plugin-x": "x"}
		},
		"jobSpecVolumes": func(g *Got) {
			g.JobSpecVolumes = edit(slices.Clone(g.JobSpecVolumes), `"mountPath":"`, `"mountPath":"/x`)
		},
	}
	for _, area := range areas {
		mutate, ok := mutations[area]
		if !ok {
			t.Errorf("no mutation for area %s", area)
			continue
		}
		got := base
		mutate(&got)
		first, failed := diffV2(c, c.Expect, got, got.input, got.written)
		if !slices.Contains(failed, area) {
			t.Errorf("%s: change not reported in its area (first %q, areas %v)", area, first, failed)
		}
	}
}

// TestSSHKeysDescribed: the runner's keys are described as FORMAT-v2
// says, the public key matching the private one.
func TestSSHKeysDescribed(t *testing.T) {
	keys, err := rsaKeys()
	if err != nil {
		t.Skip(err)
	}
	priv := rsaKey(string(keys.Private))
	if priv == nil {
		t.Fatal("the private key is not PKCS#1 PEM")
	}
	got, ok := sshPublicKey(string(keys.Public), priv)
	want := `$SSH_PUBLIC_KEY(ssh-rsa,2048-bit,matches-id_rsa=true,comment="",trailing-newline=true)`
	if !ok || got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, ok := sshPublicKey("not a key", priv); ok {
		t.Error("garbage described as a key")
	}
}

const publicVectorsV3 = "testdata/v3/vectors-v3-public.jsonl.gz"

// TestPublicVectorsV3 replays the v3 cases (v2 and the Events recorded):
// every case must pass each way, its Events compared too.
func TestPublicVectorsV3(t *testing.T) {
	if _, err := os.Stat(publicVectorsV3); err != nil {
		t.Fatalf("no vectors at %s: %v", publicVectorsV3, err)
	}
	for _, mode := range []Mode{Direct, ThroughStep} {
		for _, recount := range []bool{false, true} {
			opts := Options{Mode: mode, Recount: recount}
			var out bytes.Buffer
			tally := newAreaTally("job step (v2, v3)", areas, optionalAreas...)
			passed, failed, err := runFile(publicVectorsV3, opts, &out, false, tally)
			if err != nil {
				t.Fatal(err)
			}
			if failed > 0 || passed == 0 || tally.cases != passed || tally.carried[areaEvents] != passed {
				t.Fatalf("%+v: %d passed, %d failed, %d with events:\n%s", opts, passed, failed, tally.carried[areaEvents], out.String())
			}
		}
	}
}

// eventCase is the first public v3 case that records an Event, replayed
// with mode.
func eventCase(t *testing.T, mode Mode) (*Case, Got) {
	f, err := openVectors(publicVectorsV3)
	if err != nil {
		t.Fatalf("no vectors at %s: %v", publicVectorsV3, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if !c.V3() || len(*c.Expect.Events) == 0 {
			continue
		}
		if err := c.decodeExpectations(); err != nil {
			t.Fatal(err)
		}
		got, err := Replay(&c, Options{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if first, _ := diffV2(&c, c.Expect, got, got.input, got.written); first != "" {
			t.Fatalf("%s does not pass: %s", c.Name, first)
		}
		return &c, got
	}
	t.Skip("no case records an Event")
	return nil, Got{}
}

// TestDiffV3SeesEachEvent: an Event changed in type, reason or message,
// one missing, one more, or processNextReqEvents out of place is
// reported in the events area, each way; a v2 case is not compared
// there at all.
func TestDiffV3SeesEachEvent(t *testing.T) {
	for _, mode := range []Mode{Direct, ThroughStep} {
		c, base := eventCase(t, mode)
		events := func(g Got) []record.Event {
			if g.viaStep {
				return g.stepEvents
			}
			return *g.Events
		}
		set := func(g *Got, evs []record.Event) {
			if g.viaStep {
				g.stepEvents = evs
				return
			}
			g.Events = &evs
		}
		extra := record.Normalf("ExecuteAction", "Start to execute action RestartJob ")
		mutations := map[string]func(g *Got){
			"type":    func(g *Got) { e := slices.Clone(events(*g)); e[0].Type = record.Normal; set(g, e) },
			"reason":  func(g *Got) { e := slices.Clone(events(*g)); e[0].Reason = "PodGroupError"; set(g, e) },
			"message": func(g *Got) { e := slices.Clone(events(*g)); e[0].Message += " "; set(g, e) },
			"missing": func(g *Got) { set(g, events(*g)[1:]) },
			"extra":   func(g *Got) { set(g, append(slices.Clone(events(*g)), extra)) },
			"processNextReq first": func(g *Got) {
				if g.viaStep {
					g.stepEvents = append([]record.Event{extra}, g.stepEvents...)
					return
				}
				pnr := []record.Event{extra}
				g.ProcessNextReqEvents = &pnr
			},
		}
		for name, mutate := range mutations {
			got := base
			mutate(&got)
			first, failed := diffV2(c, c.Expect, got, got.input, got.written)
			if !slices.Contains(failed, areaEvents) {
				t.Errorf("%s, %s: change not reported in the events area (first %q, areas %v)", mode, name, first, failed)
			}
		}
	}
	// A v2 case has no events to compare: none of its areas is events.
	c, got := fullCase(t)
	if c.V3() {
		t.Fatalf("%s: a v2 case reads as v3", c.Name)
	}
	if _, failed := diffV2(c, c.Expect, got, got.input, got.written); slices.Contains(failed, areaEvents) {
		t.Errorf("a v2 case compared in the events area")
	}
}

// TestEventsAreaCountsOnlyV3: the events area counts only the cases that
// carry events, and is not printed for a file without any.
func TestEventsAreaCountsOnlyV3(t *testing.T) {
	tally := newAreaTally("job step (v2, v3)", areas, optionalAreas...)
	tally.cases = 3
	var out bytes.Buffer
	tally.print(&out)
	if bytes.Contains(out.Bytes(), []byte(areaEvents)) {
		t.Errorf("events printed with no case carrying them:\n%s", out.String())
	}
	tally.carried[areaEvents] = 2
	tally.add(areaEvents)
	out.Reset()
	tally.print(&out)
	if !bytes.Contains(out.Bytes(), []byte("events               1 / 2")) {
		t.Errorf("events not counted out of the cases carrying them:\n%s", out.String())
	}
}
