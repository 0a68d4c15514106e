package main

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/statemachine/memcluster"
)

// The areas a v2 case is compared in (FORMAT-v2.md), in the order a
// difference is reported.
var areas = []string{"status", "createdPods", "pluginObjects", "podGroup", "minResources", "pvcs", "controlledResources", "jobSpecVolumes"}

// The areas only some cases carry, compared (and counted) in those alone:
// a v3 case's Events (FORMAT-v3.md), after the v2 areas.
var optionalAreas = []string{areaEvents}

const areaEvents = "events"

// carries reports whether a case is compared in an optional area.
func (c *Case) carries(area string) bool {
	return area == areaEvents && c.V3()
}

// priorities is the case's PriorityClass lister.
func (c *Case) priorities() podgroup.PriorityLookup {
	if len(c.PriorityClasses) == 0 {
		return nil
	}
	m := make(map[string]int32, len(c.PriorityClasses))
	for _, pc := range c.PriorityClasses {
		m[pc.Name] = pc.Value
	}
	return func(name string) (int32, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// putV2 adds what a v2 case has around the job to the cluster: the whole
// PodGroup, the priority classes and the claims that exist.
func putV2(c *Case, cl *memcluster.Cluster, job *vcjob.Job) {
	cl.Priorities = c.priorities()
	for _, name := range c.PVCs {
		cl.PutClaim(job.Namespace, name)
	}
	if c.PodGroupObject != nil {
		cl.PutPodGroup(c.PodGroupObject)
	}
}

// collectV2 reads the whole objects the step wrote from the cluster's
// journal, in the vectors' terms.
func collectV2(got Got, cl *memcluster.Cluster, input *vcjob.Job, priorities podgroup.PriorityLookup) (Got, error) {
	j := &cl.Journal
	n := j.StatusWrites
	got.StatusWrites = &n
	stored := cl.StoredJob(input.Namespace, input.Name)
	got.ControlledResources = stored.Status.ControlledResources
	if got.ControlledResources == nil {
		got.ControlledResources = map[string]string{}
	}
	var err error
	if got.RawCreatedPods, err = createdPodsJSON(j.CreatedPods); err != nil {
		return got, err
	}
	got.PodGroup = json.RawMessage("null")
	if len(j.PodGroupWrites) > 0 {
		last := j.PodGroupWrites[len(j.PodGroupWrites)-1]
		raw, err := json.Marshal(map[string]any{"op": last.Op, "object": last.Object})
		if err != nil {
			return got, err
		}
		got.PodGroup = raw
	}
	// What the library sizes the PodGroup with, written or not: the job as
	// the step left it (its spec as written back).
	raw, err := json.Marshal(podgroup.MinResources(stored, priorities))
	if err != nil {
		return got, err
	}
	got.MinResources = raw
	if got.PluginObjects, err = pluginObjectsJSON(j.ObjectWrites); err != nil {
		return got, err
	}
	got.PVCs = nil
	got.createdClaims = nil
	for _, pvc := range j.ClaimsCreated {
		got.createdClaims = append(got.createdClaims, pvc.Name)
		raw, err := json.Marshal(pvc)
		if err != nil {
			return got, err
		}
		got.PVCs = append(got.PVCs, raw)
	}
	got.JobSpecVolumes = nil
	if len(j.JobWrites) > 0 {
		if got.JobSpecVolumes, err = json.Marshal(j.JobWrites[len(j.JobWrites)-1].Spec.Volumes); err != nil {
			return got, err
		}
	}
	return got, nil
}

// createdPodsJSON is the created pods, by name.
func createdPodsJSON(pods []*corev1.Pod) ([]json.RawMessage, error) {
	created := append([]*corev1.Pod(nil), pods...)
	sort.Slice(created, func(a, b int) bool { return created[a].Name < created[b].Name })
	var out []json.RawMessage
	for _, p := range created {
		raw, err := json.Marshal(p)
		if err != nil {
			return out, err
		}
		out = append(out, raw)
	}
	return out, nil
}

// pluginObjectsJSON is one entry per plugin object written, by kind and
// name: the operations in order, joined, and the object as last written.
func pluginObjectsJSON(writes []memcluster.ObjectWrite) ([]json.RawMessage, error) {
	type objOps struct {
		kind, name string
		ops        []string
		obj        any
	}
	byKey := map[string]*objOps{}
	var order []*objOps
	for _, w := range writes {
		k := w.Kind + "/" + w.Name
		o := byKey[k]
		if o == nil {
			o = &objOps{kind: w.Kind, name: w.Name}
			byKey[k] = o
			order = append(order, o)
		}
		o.ops = append(o.ops, w.Op)
		o.obj = w.Object
	}
	sort.Slice(order, func(a, b int) bool {
		if order[a].kind != order[b].kind {
			return order[a].kind < order[b].kind
		}
		return order[a].name < order[b].name
	})
	var out []json.RawMessage
	for _, o := range order {
		raw, err := json.Marshal(map[string]any{"kind": o.kind, "name": o.name, "op": strings.Join(o.ops, ","), "object": o.obj})
		if err != nil {
			return out, err
		}
		out = append(out, raw)
	}
	return out, nil
}

// normaliser rewrites the library's objects as FORMAT-v2.md normalises
// them: generated claim names, job volume names, list order, secrets.
type normaliser struct {
	// gen maps a generated claim name to $GENPVC[i].
	gen map[string]string
	// claims maps a job volume's claim (normalised) to its first index.
	claims map[string]int
}

// newNormaliser learns the generated claim names from the job as the step
// wrote it (got) against the job as it came in.
func newNormaliser(input *vcjob.Job, written *vcjob.Job, createdClaims []string) *normaliser {
	n := &normaliser{gen: map[string]string{}, claims: map[string]int{}}
	named := map[string]bool{}
	for _, v := range input.Spec.Volumes {
		named[v.VolumeClaimName] = true
	}
	// A sync that failed before writing the job back still created the
	// claims of the volumes before the failure, in spec order.
	var unnamedCreated []string
	for _, c := range createdClaims {
		if !named[c] {
			unnamedCreated = append(unnamedCreated, c)
		}
	}
	for i, v := range input.Spec.Volumes {
		name := v.VolumeClaimName
		if name == "" && written != nil && i < len(written.Spec.Volumes) {
			if g := written.Spec.Volumes[i].VolumeClaimName; g != "" {
				n.gen[g] = "$GENPVC[" + strconv.Itoa(i) + "]"
				name = n.gen[g]
			}
		}
		if name == "" && v.VolumeClaim != nil && len(unnamedCreated) > 0 {
			n.gen[unnamedCreated[0]] = "$GENPVC[" + strconv.Itoa(i) + "]"
			name = n.gen[unnamedCreated[0]]
			unnamedCreated = unnamedCreated[1:]
		}
		if _, ok := n.claims[name]; !ok && name != "" {
			n.claims[name] = i
		}
	}
	return n
}

// apply rewrites one value: generated names first (as text), then the
// given object kind's rules.
func (n *normaliser) apply(raw json.RawMessage, kind string) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	text := string(raw)
	// Longest first, so that no name is a prefix of a later one.
	names := make([]string, 0, len(n.gen))
	for g := range n.gen {
		names = append(names, g)
	}
	sort.Slice(names, func(a, b int) bool { return len(names[a]) > len(names[b]) })
	for _, g := range names {
		text = strings.ReplaceAll(text, g, n.gen[g])
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	switch kind {
	case "pod":
		stripMeta(v)
		n.pod(v)
	case "object", "pvc":
		stripMeta(v)
	case "pluginObject":
		if m, ok := v.(map[string]any); ok {
			stripMeta(m["object"])
			if m["kind"] == "Secret" {
				secretData(m["object"])
			}
		}
	case "podGroup":
		if m, ok := v.(map[string]any); ok {
			stripMeta(m["object"])
		}
	}
	return v, nil
}

// stripMeta removes what the server sets, as FORMAT-v2.md says.
func stripMeta(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for _, k := range []string{"apiVersion", "kind", "status"} {
		delete(m, k)
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		for _, k := range []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink"} {
			delete(md, k)
		}
	}
}

// pod renames job volumes to $JOBVOL[i] and sorts the lists plugins
// append to.
func (n *normaliser) pod(v any) {
	spec, _ := asMap(v)["spec"].(map[string]any)
	if spec == nil {
		return
	}
	rename := map[string]string{}
	vols, _ := spec["volumes"].([]any)
	for _, vol := range vols {
		m := asMap(vol)
		pvc := asMap(m["persistentVolumeClaim"])
		if pvc == nil {
			continue
		}
		claim, _ := pvc["claimName"].(string)
		if i, ok := n.claims[claim]; ok {
			name, _ := m["name"].(string)
			rename[name] = "$JOBVOL[" + strconv.Itoa(i) + "]"
			m["name"] = rename[name]
		}
	}
	sortBy(vols, "name")
	for _, key := range []string{"initContainers", "containers"} {
		cs, _ := spec[key].([]any)
		for _, c := range cs {
			cm := asMap(c)
			mounts, _ := cm["volumeMounts"].([]any)
			for _, mt := range mounts {
				mm := asMap(mt)
				if name, ok := mm["name"].(string); ok && rename[name] != "" {
					mm["name"] = rename[name]
				}
			}
			sortBy(cm["env"], "name")
			sortBy(mounts, "name", "mountPath", "subPath")
			sortBy(cm["ports"], "containerPort", "name")
		}
	}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// sortBy sorts a list of objects by the given keys, ties by their JSON.
func sortBy(list any, keys ...string) {
	l, ok := list.([]any)
	if !ok {
		return
	}
	key := func(v any) []string {
		m := asMap(v)
		out := make([]string, 0, len(keys)+1)
		for _, k := range keys {
			switch x := m[k].(type) {
			case json.Number:
				// Numbers compare as numbers: pad them.
				f, _ := x.Float64()
				out = append(out, fmt.Sprintf("%020.3f", f))
			case nil:
				out = append(out, "")
			default:
				out = append(out, fmt.Sprint(x))
			}
		}
		b, _ := json.Marshal(v)
		return append(out, string(b))
	}
	sort.SliceStable(l, func(a, b int) bool {
		ka, kb := key(l[a]), key(l[b])
		for i := range ka {
			if ka[i] != kb[i] {
				return ka[i] < kb[i]
			}
		}
		return false
	})
}

// secretData writes a Secret's data as plain strings and its keys as what
// they are.
func secretData(v any) {
	m := asMap(v)
	data := asMap(m["data"])
	if data == nil {
		return
	}
	for k, val := range data {
		s, _ := val.(string)
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			data[k] = string(b)
		}
	}
	priv, _ := data["id_rsa"].(string)
	key := rsaKey(priv)
	if key != nil {
		data["id_rsa"] = fmt.Sprintf("$RSA_PRIVATE_KEY(pkcs1-pem,%d-bit)", key.N.BitLen())
	}
	for _, k := range []string{"id_rsa.pub", "authorized_keys"} {
		s, _ := data[k].(string)
		if d, ok := sshPublicKey(s, key); ok {
			data[k] = d
		}
	}
}

func rsaKey(s string) *rsa.PrivateKey {
	block, _ := pem.Decode([]byte(s))
	if block == nil {
		return nil
	}
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		return nil
	}
	return key
}

// sshPublicKey describes an authorized_keys line "TYPE BASE64 [COMMENT]".
func sshPublicKey(s string, priv *rsa.PrivateKey) (string, bool) {
	trailing := strings.HasSuffix(s, "\n")
	fields := strings.SplitN(strings.TrimRight(s, "\n"), " ", 3)
	if len(fields) < 2 || strings.Contains(strings.TrimRight(s, "\n"), "\n") {
		return "", false
	}
	blob, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil {
		return "", false
	}
	parts := [][]byte{}
	for len(blob) >= 4 {
		n := binary.BigEndian.Uint32(blob)
		if uint64(n) > uint64(len(blob)-4) {
			return "", false
		}
		parts = append(parts, blob[4:4+n])
		blob = blob[4+n:]
	}
	if len(blob) != 0 || len(parts) != 3 || string(parts[0]) != fields[0] || fields[0] != "ssh-rsa" {
		return "", false
	}
	e := new(big.Int).SetBytes(parts[1])
	nn := new(big.Int).SetBytes(parts[2])
	matches := priv != nil && priv.N.Cmp(nn) == 0 && big.NewInt(int64(priv.E)).Cmp(e) == 0
	comment := ""
	if len(fields) == 3 {
		comment = fields[2]
	}
	return fmt.Sprintf("$SSH_PUBLIC_KEY(%s,%d-bit,matches-id_rsa=%v,comment=%q,trailing-newline=%v)", fields[0], nn.BitLen(), matches, comment, trailing), true
}

// diffV2 names the first area where the library wrote other objects than
// Volcano, or "" when every area agrees; failed lists every area that
// differs.
func diffV2(c *Case, want, got Expect, input, written *vcjob.Job) (first string, failed []string) {
	n := newNormaliser(input, written, got.createdClaims)
	check := func(area, d string) {
		if d == "" {
			return
		}
		failed = append(failed, area)
		if first == "" {
			first = area + ": " + d
		}
	}
	// status: the decision, the status, the writes, the deletes. The
	// created pods are compared whole below, against their variants too.
	w, g := want, got
	w.CreatedPods, g.CreatedPods = nil, nil
	d := Diff(w, g)
	if d == "" && len(want.CreatedPods) != len(got.CreatedPods) {
		d = fmt.Sprintf("createdPods: want %v, got %v", names(want.CreatedPods), names(got.CreatedPods))
	}
	if d == "" && want.StatusWrites != nil && (got.StatusWrites == nil || *want.StatusWrites != *got.StatusWrites) {
		d = fmt.Sprintf("statusWrites: want %d, got %v", *want.StatusWrites, deref(got.StatusWrites))
	}
	check("status", d)
	check("createdPods", n.diffPods(c, want.RawCreatedPods, got.RawCreatedPods))
	check("pluginObjects", n.diffList("pluginObject", want.PluginObjects, got.PluginObjects))
	check("podGroup", n.diffValue("podGroup", want.PodGroup, got.PodGroup))
	check("minResources", n.diffValue("", want.MinResources, got.MinResources))
	check("pvcs", n.diffList("pvc", want.PVCs, got.PVCs))
	wantCR, _ := json.Marshal(want.ControlledResources)
	gotCR, _ := json.Marshal(got.ControlledResources)
	check("controlledResources", n.diffValue("", wantCR, gotCR))
	check("jobSpecVolumes", n.diffValue("", want.JobSpecVolumes, got.JobSpecVolumes))
	if c.V3() {
		check(areaEvents, diffEvents(want, got))
	}
	return first, failed
}

// diffEvents compares the Events of a v3 case: through the step, the
// record's must be processNextReqEvents followed by events (the order
// processNextReq records them in); directly, the call's must be events
// and the decision's processNextReqEvents.
func diffEvents(want, got Expect) string {
	var wantPNR []record.Event
	if want.ProcessNextReqEvents != nil {
		wantPNR = *want.ProcessNextReqEvents
	}
	if got.viaStep {
		all := append(slices.Clone(wantPNR), *want.Events...)
		return diffEventList("", all, got.stepEvents)
	}
	if got.Events == nil {
		return "no events replayed"
	}
	if d := diffEventList("", *want.Events, *got.Events); d != "" {
		return d
	}
	if want.ProcessNextReqEvents != nil {
		var gotPNR []record.Event
		if got.ProcessNextReqEvents != nil {
			gotPNR = *got.ProcessNextReqEvents
		}
		return diffEventList("processNextReqEvents: ", wantPNR, gotPNR)
	}
	return ""
}

// diffEventList names the first Event that differs, by index.
func diffEventList(prefix string, want, got []record.Event) string {
	for i := range max(len(want), len(got)) {
		switch {
		case i >= len(want):
			return fmt.Sprintf("%sunexpected [%d] %q", prefix, i, got[i].String())
		case i >= len(got):
			return fmt.Sprintf("%smissing [%d] %q", prefix, i, want[i].String())
		case want[i] != got[i]:
			return fmt.Sprintf("%s[%d]: want %q, got %q", prefix, i, want[i].String(), got[i].String())
		}
	}
	return ""
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// diffPods matches each created pod, by name, against its recorded
// version or any of its variants.
func (n *normaliser) diffPods(c *Case, want, got []json.RawMessage) string {
	name := func(raw json.RawMessage) string {
		var p corev1.Pod
		_ = json.Unmarshal(raw, &p)
		return p.Name
	}
	if len(want) != len(got) {
		var w, g []string
		for _, r := range want {
			w = append(w, name(r))
		}
		for _, r := range got {
			g = append(g, name(r))
		}
		return fmt.Sprintf("want %d pods %v, got %d %v", len(want), w, len(got), g)
	}
	for i := range want {
		pod := name(want[i])
		gv, err := n.apply(got[i], "pod")
		if err != nil {
			return err.Error()
		}
		candidates := append([]json.RawMessage{want[i]}, c.CreatedPodVariants[pod]...)
		first := ""
		matched := false
		for _, cand := range candidates {
			wv, err := n.apply(cand, "pod")
			if err != nil {
				return err.Error()
			}
			if d := valueDiff("", wv, gv); d == "" {
				matched = true
				break
			} else if first == "" {
				first = d
			}
		}
		if !matched {
			return fmt.Sprintf("pod %s: %s", pod, first)
		}
	}
	return ""
}

func (n *normaliser) diffList(kind string, want, got []json.RawMessage) string {
	if len(want) != len(got) {
		return fmt.Sprintf("want %d, got %d: want %s, got %s", len(want), len(got), short(want), short(got))
	}
	for i := range want {
		wv, err := n.apply(want[i], kind)
		if err != nil {
			return err.Error()
		}
		gv, err := n.apply(got[i], kind)
		if err != nil {
			return err.Error()
		}
		if d := valueDiff(fmt.Sprintf("[%d]", i), wv, gv); d != "" {
			return d
		}
	}
	return ""
}

func (n *normaliser) diffValue(kind string, want, got json.RawMessage) string {
	wv, err := n.apply(nullIfEmpty(want), kind)
	if err != nil {
		return err.Error()
	}
	gv, err := n.apply(nullIfEmpty(got), kind)
	if err != nil {
		return err.Error()
	}
	return valueDiff("", wv, gv)
}

func nullIfEmpty(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

func short(list []json.RawMessage) string {
	var b strings.Builder
	for i, r := range list {
		if i > 0 {
			b.WriteString(" ")
		}
		var v struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
			Meta struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal(r, &v)
		b.WriteString(strings.TrimPrefix(v.Kind+"/"+v.Name+v.Meta.Name, "/"))
	}
	return "[" + b.String() + "]"
}

// valueDiff names the first path where two JSON values differ.
func valueDiff(path string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want %s, got %s", orRoot(path), brief(want), brief(got))
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if d := valueDiff(path+"."+k, w[k], g[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(w) != len(g) {
			return fmt.Sprintf("%s: want %s, got %s", orRoot(path), brief(want), brief(got))
		}
		for i := range w {
			if d := valueDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Sprintf("%s: want %s, got %s", orRoot(path), brief(want), brief(got))
	}
	return ""
}

func orRoot(path string) string {
	if path == "" {
		return "(whole)"
	}
	return strings.TrimPrefix(path, ".")
}

func brief(v any) string {
	if v == nil {
		return "nothing"
	}
	b, _ := json.Marshal(v)
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
