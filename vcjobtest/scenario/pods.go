package scenario

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
)

// This file holds what the verbs acting on pods share: their PODS
// argument, which pods it names now, the node the simulated scheduler
// binds a pod to, and the kubelet's copy of a pod.

// parsePods parses "VERB PODS".
func parsePods(c *Command, args []string) error {
	if err := wantArgs(c.verb, args, 1, 1); err != nil {
		return err
	}
	c.pods = args[0]
	return nil
}

// parsePodsNumber parses "VERB PODS [N]" (a restart count, an exit
// code): N is 1 when left out.
func parsePodsNumber(c *Command, args []string) error {
	if err := wantArgs(c.verb, args, 1, 2); err != nil {
		return err
	}
	c.pods = args[0]
	c.n = 1
	if len(args) == 2 {
		v, err := strconv.ParseInt(args[1], 10, 32)
		if err != nil || v < 0 {
			return fmt.Errorf("%s: bad number %q", c.verb, args[1])
		}
		c.n = int32(v)
	}
	return nil
}

// The groups a pod verb takes from "all" or "TASK-*" (verb.group).
func pendingPod(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodPending }
func runningPod(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning }
func anyPod(*corev1.Pod) bool       { return true }

// pods resolves a command's pod argument against the cluster: a pod by
// its name or short name (TASK-INDEX), or the pods of the job (all) or
// of a task (TASK-*) that the verb's group takes.
func (s *sim) pods(c Command) ([]*corev1.Pod, error) {
	all := s.cluster.Pods(s.ns, s.job)
	var out []*corev1.Pod
	for _, p := range all {
		short := strings.TrimPrefix(p.Name, s.job+"-")
		switch {
		case c.pods == "all", c.pods == p.Name, c.pods == short:
		case strings.HasSuffix(c.pods, "-*") && p.Annotations[vcjob.TaskSpecKey] == strings.TrimSuffix(c.pods, "-*"):
		default:
			continue
		}
		if c.pods == "all" || strings.HasSuffix(c.pods, "-*") {
			// A group only takes the pods the command makes sense for.
			if p.DeletionTimestamp != nil || c.op == nil || c.op.group == nil || !c.op.group(p) {
				continue
			}
		}
		out = append(out, p)
	}
	if len(all) == 0 {
		job := s.cluster.Job(s.ns, s.job)
		if !s.cluster.PodGroup(job).Exists {
			return nil, c.errorf("the job has no pods and no PodGroup now (a whole-job kill deletes both; the next sync creates the PodGroup again)")
		}
		if s.hadPods {
			return nil, c.errorf("the job has no pods now: the last kill deleted them and the job is %s; Volcano creates new ones once the scheduler admits its PodGroup (now %s): put \"podgroup Inqueue\" before this line",
				orNone(job.Status.State.Phase), orNone(vcjob.JobPhase(s.cluster.PodGroup(job).Phase)))
		}
		return nil, c.errorf("the job has no pods yet: Volcano creates them once the scheduler admits the PodGroup; put \"podgroup Inqueue\" before this line")
	}
	s.hadPods = true
	if len(out) == 0 {
		var names []string
		for _, p := range all {
			state := string(p.Status.Phase)
			if p.DeletionTimestamp != nil {
				state += ",terminating"
			}
			names = append(names, strings.TrimPrefix(p.Name, s.job+"-")+"="+state)
		}
		return nil, c.errorf("no pod matches %q (pods: %s)", c.pods, strings.Join(names, ", "))
	}
	return out, nil
}

// eachPod plays change on each pod the command names, then settles.
func (s *sim) eachPod(c Command, change func(p *corev1.Pod)) error {
	pods, err := s.pods(c)
	if err != nil {
		return err
	}
	for _, p := range pods {
		change(p)
	}
	return s.settle()
}

// kubelet writes the pod's status as a kubelet does: on a copy, bound to
// its node (NodeFor) if it was not, with a status for each container
// (one named main when the spec has none), changed by set.
func (s *sim) kubelet(p *corev1.Pod, set func(p *corev1.Pod)) {
	p = p.DeepCopy()
	if p.Spec.NodeName == "" {
		p.Spec.NodeName = NodeFor(p)
	}
	if len(p.Status.ContainerStatuses) == 0 {
		for _, ct := range p.Spec.Containers {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: ct.Name})
		}
		if len(p.Status.ContainerStatuses) == 0 {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main"}}
		}
	}
	set(p)
	s.cluster.PutPod(p)
}

// terminated is a container state that exited with code.
func terminated(code int32) corev1.ContainerState {
	return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}
}

// NodeFor is the node the simulated scheduler binds a pod to: the one
// its required node affinity names by metadata.name or by the
// kubernetes.io/hostname label (the first value of the first term that
// names one), else node-0.
func NodeFor(p *corev1.Pod) string {
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, f := range term.MatchFields {
				if f.Key == "metadata.name" && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) > 0 {
					return f.Values[0]
				}
			}
			for _, e := range term.MatchExpressions {
				if e.Key == corev1.LabelHostname && e.Operator == corev1.NodeSelectorOpIn && len(e.Values) > 0 {
					return e.Values[0]
				}
			}
		}
	}
	return "node-0"
}

// podNamed is the pod of that name or short name (TASK-INDEX), or nil.
func (s *sim) podNamed(name string) *corev1.Pod {
	if p := s.cluster.Pod(s.ns, name); p != nil {
		return p
	}
	return s.cluster.Pod(s.ns, s.job+"-"+name)
}
