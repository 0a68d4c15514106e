package expect

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// checkObjects makes the checks on plugin objects, pods' contents and
// the job's spec.
func (e Expectation) checkObjects(t *Trace, s *Snapshot) error {
	a := e.args
	switch e.verb {
	case "object", "no-object":
		_, ok := s.Objects[a[0]+"/"+a[1]]
		if ok != (e.verb == "object") {
			return fmt.Errorf("%s %s exists: %v (objects %s)", a[0], a[1], ok, objectNames(s))
		}
		return nil
	case "owned":
		o, ok := s.Objects[a[0]+"/"+a[1]]
		if !ok {
			return fmt.Errorf("no %s %s (objects %s)", a[0], a[1], objectNames(s))
		}
		m, err := meta.Accessor(o)
		if err != nil {
			return err
		}
		if s.Job == nil {
			return fmt.Errorf("the job is gone")
		}
		if ref := metav1.GetControllerOf(m); ref == nil || ref.UID != s.Job.UID {
			return fmt.Errorf("%s %s's controller is %v, not the job (UID %s)", a[0], a[1], ref, s.Job.UID)
		}
		return nil
	case "configmap":
		return checkConfigMap(s, a[0], a[1:])
	case "volume":
		p := findPod(s, fullName(t.Job, a[0]))
		if p == nil {
			return fmt.Errorf("no pod %s", a[0])
		}
		for _, v := range p.Spec.Volumes {
			if v.Name == a[1] {
				return nil
			}
		}
		return fmt.Errorf("pod %s has no volume %s", p.Name, a[1])
	case "env":
		return checkEnv(findPod(s, fullName(t.Job, a[0])), a[0], a[1:])
	case "node", "same-node":
		return checkNodes(s, a)
	case "volumes", "claim":
		return checkVolumes(s, e.verb, a)
	}
	return fmt.Errorf("unknown check %q", e.verb)
}

func objectNames(s *Snapshot) string {
	var names []string
	for k := range s.Objects {
		names = append(names, k)
	}
	sort.Strings(names)
	return "[" + strings.Join(names, " ") + "]"
}

func checkConfigMap(s *Snapshot, name string, kvs []string) error {
	o, ok := s.Objects["ConfigMap/"+name]
	if !ok {
		return fmt.Errorf("no ConfigMap %s (objects %s)", name, objectNames(s))
	}
	cm, ok := o.(*corev1.ConfigMap)
	if !ok {
		return fmt.Errorf("ConfigMap %s is a %T", name, o)
	}
	want := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("want KEY=VALUE, got %q", kv)
		}
		want[k] = strings.ReplaceAll(v, `\n`, "\n")
	}
	var problems []string
	for k, v := range cm.Data {
		if w, ok := want[k]; !ok || w != v {
			problems = append(problems, fmt.Sprintf("%s=%q", k, v))
		}
	}
	for k := range want {
		if _, ok := cm.Data[k]; !ok {
			problems = append(problems, k+" missing")
		}
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		return fmt.Errorf("data differs: %s", strings.Join(problems, ", "))
	}
	return nil
}

func checkEnv(p *corev1.Pod, name string, vars []string) error {
	if p == nil {
		return fmt.Errorf("no pod %s", name)
	}
	containers := append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...)
	for _, c := range containers {
		have := map[string]bool{}
		for _, e := range c.Env {
			have[e.Name] = true
		}
		for _, v := range vars {
			if !have[v] {
				return fmt.Errorf("container %s of %s has no env %s", c.Name, p.Name, v)
			}
		}
	}
	return nil
}

func checkNodes(s *Snapshot, a []string) error {
	if len(s.Pods) == 0 {
		return fmt.Errorf("the job has no pods")
	}
	node := s.Pods[0].Spec.NodeName
	if len(a) == 1 {
		node = a[0]
	}
	for _, p := range s.Pods {
		if p.Spec.NodeName != node {
			return fmt.Errorf("%s is on node %q, not %q", p.Name, p.Spec.NodeName, node)
		}
	}
	return nil
}

func checkVolumes(s *Snapshot, verb string, a []string) error {
	if s.Job == nil {
		return fmt.Errorf("the job is gone")
	}
	vols := s.Job.Spec.Volumes
	if verb == "volumes" {
		n, err := atoi(a[0])
		if err != nil {
			return err
		}
		if len(vols) != n {
			return fmt.Errorf("%d volumes", len(vols))
		}
		return nil
	}
	i, err := atoi(a[0])
	if err != nil {
		return err
	}
	if i < 0 || i >= len(vols) {
		return fmt.Errorf("no volume %d (%d volumes)", i, len(vols))
	}
	got := vols[i].VolumeClaimName
	if (a[1] == "*" && got == "") || (a[1] != "*" && got != a[1]) {
		return fmt.Errorf("volumes[%d].volumeClaimName %q, want %s", i, got, a[1])
	}
	return nil
}
