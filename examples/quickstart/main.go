package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/manifest"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/policy"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
	"github.com/vcjob/vcjob/validation"
	"github.com/vcjob/vcjob/worker"
)

//go:embed pytorch-job.yaml
var jobYAML []byte

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// world is the cluster the quickstart plays: the in-memory cluster plus a
// clock and the job's name.
type world struct {
	c        *memcluster.Cluster
	ns, name string
}

func run() error {
	job, err := manifest.DecodeJob(jobYAML)
	if err != nil {
		return err
	}
	vcjob.SetDefaults(job)
	if errs := validation.ValidateJob(job); len(errs) > 0 {
		return errs.ToAggregate()
	}
	fmt.Printf("job %s/%s: %d tasks, minAvailable %d, maxRetry %d\n\n", job.Namespace, job.Name, len(job.Spec.Tasks), job.Spec.MinAvailable, job.Spec.MaxRetry)

	w := &world{c: memcluster.New(metav1.NewTime(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)))}
	// The job's plugins (pytorch, and svc which defaulting added) shape
	// its pods and create its Service and host-list ConfigMap.
	w.c.Plugins = plugins.NewRegistry()
	// Stored as an API server stores it: with a UID (and namespace
	// default, had the manifest named none).
	job = w.c.PutJob(job)
	w.ns, w.name = job.Namespace, job.Name
	pg := podgroup.Name(job)

	fmt.Println("# the job is created")
	if err := w.step(request.Request{Event: vcjob.OutOfSyncEvent}); err != nil {
		return err
	}
	fmt.Println("# the scheduler admits the gang (PodGroup Inqueue)")
	w.c.SetPodGroupPhase(w.ns, pg, podgroup.PhaseInqueue)
	if err := w.step(request.Request{}); err != nil {
		return err
	}
	fmt.Println("# the pods are bound and start running")
	if err := w.startAll(); err != nil {
		return err
	}
	w.showPlugins()
	fmt.Println("# worker-1 is OOM-killed (exit code 137)")
	w.setPhase(w.name+"-worker-1", corev1.PodFailed, 137)
	if err := w.step(w.podRequest(w.name+"-worker-1", vcjob.PodFailedEvent, 137)); err != nil {
		return err
	}
	fmt.Println("# the controller resyncs: the pod is replaced")
	if err := w.step(request.Request{Event: vcjob.OutOfSyncEvent}); err != nil {
		return err
	}
	w.setPhase(w.name+"-worker-1", corev1.PodRunning, 0)
	if err := w.step(w.podRequest(w.name+"-worker-1", vcjob.PodRunningEvent, 0)); err != nil {
		return err
	}
	fmt.Println("# a node is drained: worker-0 is evicted")
	evicted := w.podRequest(w.name+"-worker-0", vcjob.PodEvictedEvent, 0)
	w.c.RemovePod(w.ns, w.name+"-worker-0")
	if err := w.step(evicted); err != nil {
		return err
	}
	fmt.Println("# the old pods are gone; the scheduler admits the new gang")
	w.c.FinishTerminating()
	w.c.SetPodGroupPhase(w.ns, pg, podgroup.PhaseInqueue)
	if err := w.step(request.Request{Event: vcjob.OutOfSyncEvent}); err != nil {
		return err
	}
	if err := w.startAll(); err != nil {
		return err
	}
	fmt.Println("# training ends: the master succeeds")
	w.setPhase(w.name+"-master-0", corev1.PodSucceeded, 0)
	if err := w.step(w.podRequest(w.name+"-master-0", vcjob.TaskCompletedEvent, 0)); err != nil {
		return err
	}
	fmt.Println("# the workers are gone: the job completes")
	w.c.FinishTerminating()
	if err := w.step(request.Request{Event: vcjob.OutOfSyncEvent}); err != nil {
		return err
	}
	final := w.c.Job(w.ns, w.name).Status
	fmt.Printf("\nfinal: phase %s, retryCount %d, version %d, %d pending, %d running\n",
		final.State.Phase, final.RetryCount, final.Version, final.Pending, final.Running)
	return nil
}

// showPlugins prints what the plugins made: the svc plugin's Service and
// host-list ConfigMap, and the environment a worker pod got.
func (w *world) showPlugins() {
	fmt.Println("# what the plugins made")
	for _, kind := range []string{"Service", "ConfigMap", "NetworkPolicy"} {
		name := w.name
		if kind == "ConfigMap" {
			name += "-svc"
		}
		if w.c.Object(kind, w.ns, name) != nil {
			fmt.Printf("  %-13s %s/%s\n", kind, w.ns, name)
		}
	}
	worker := w.c.Pod(w.ns, w.name+"-worker-1")
	var env []string
	for _, e := range worker.Spec.Containers[0].Env {
		if e.Value != "" {
			env = append(env, e.Name+"="+e.Value)
		}
	}
	fmt.Printf("  worker-1 env  %s\n\n", strings.Join(env, " "))
}

// startAll binds the PodGroup and starts every pending pod, one event at
// a time.
func (w *world) startAll() error {
	w.c.SetPodGroupPhase(w.ns, podgroup.Name(w.c.Job(w.ns, w.name)), podgroup.PhaseRunning)
	for _, p := range w.c.Pods(w.ns, w.name) {
		if p.Status.Phase != corev1.PodPending {
			continue
		}
		w.setPhase(p.Name, corev1.PodRunning, 0)
		if err := w.step(w.podRequest(p.Name, vcjob.PodRunningEvent, 0)); err != nil {
			return err
		}
	}
	return nil
}

// step resolves one request against the stored job and, unless the policy
// delays it, runs the action through the state machine; it prints what
// happened.
func (w *world) step(req request.Request) error {
	req.Namespace, req.JobName = w.ns, w.name
	ji, err := w.c.JobInfo(w.ns, w.name)
	if err != nil {
		return err
	}
	before := ji.Job.Status.State.Phase
	d := policy.Resolve(ji.Job, req)
	w.c.Journal.Reset()
	fmt.Printf("  request  %s\n  rule     %s\n  action   %s", describe(req), d.Rule, d.Action)
	// What kubectl describe vcjob would show: Volcano's worker records
	// the decision's Events, then the call's (memcluster's journal).
	events := worker.DecisionEvents(d.Action, d.Delay)
	if d.Delay > 0 {
		fmt.Printf(" after %s (scheduled, not run)\n", d.Delay)
		printEvents(events)
		fmt.Println()
		return nil
	}
	if _, err := statemachine.Execute(context.Background(), w.c, ji, d.Action, d.Target); err != nil {
		return err
	}
	after := w.c.Job(w.ns, w.name).Status
	if before == after.State.Phase {
		fmt.Printf("\n  phase    stays %s", before)
	} else {
		fmt.Printf("\n  phase    %s -> %s", orNone(before), after.State.Phase)
	}
	fmt.Printf(" (retry %d, version %d)\n", after.RetryCount, after.Version)
	if len(w.c.Journal.Created) > 0 {
		var names []string
		for _, p := range w.c.Journal.CreatedPods {
			names = append(names, p.Name)
		}
		fmt.Printf("  created  %v\n", names)
	}
	if len(w.c.Journal.Deleted) > 0 {
		fmt.Printf("  deleted  %v\n", w.c.Journal.Deleted)
	}
	printEvents(append(events, w.c.Journal.Events...))
	fmt.Println()
	return nil
}

// printEvents prints Kubernetes Events as kubectl describe lists them.
func printEvents(events []record.Event) {
	for _, e := range events {
		fmt.Printf("  event    %-7s %-13s %s\n", e.Type, e.Reason, e.Message)
	}
}

// podRequest is the request a pod event raises, as Volcano's event handlers
// build it from the pod's annotations.
func (w *world) podRequest(name string, event vcjob.Event, exitCode int32) request.Request {
	p := w.c.Pod(w.ns, name)
	var version int
	fmt.Sscan(p.Annotations[vcjob.JobVersionKey], &version)
	return request.Request{
		JobUID: w.c.Job(w.ns, w.name).UID, TaskName: p.Annotations[vcjob.TaskSpecKey],
		PodName: p.Name, PodUID: p.UID, Event: event, ExitCode: exitCode, JobVersion: int32(version),
	}
}

// setPhase plays the kubelet: the pod's phase, ready containers while it
// runs, and the exit code of a failed one.
func (w *world) setPhase(name string, phase corev1.PodPhase, exitCode int32) {
	p := w.c.Pod(w.ns, name)
	p.Status.Phase = phase
	p.Spec.NodeName = "node-1"
	cs := corev1.ContainerStatus{Name: "pytorch", Ready: phase == corev1.PodRunning}
	if phase == corev1.PodFailed {
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: exitCode, Reason: "OOMKilled"}
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
	w.c.PutPod(p)
}

func describe(r request.Request) string {
	s := string(r.Event)
	if s == "" {
		s = "(PodGroup changed)"
	}
	if r.PodName != "" {
		s += " pod " + r.PodName
	}
	if r.ExitCode != 0 {
		s += fmt.Sprintf(" exit code %d", r.ExitCode)
	}
	return s
}

func orNone(p vcjob.JobPhase) vcjob.JobPhase {
	if p == "" {
		return "(none)"
	}
	return p
}
