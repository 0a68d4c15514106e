//go:build e2e

package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

const pytorchJob = `
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: mnist
spec:
  minAvailable: 3
  schedulerName: volcano
  queue: default
  plugins:
    pytorch: ["--master=master", "--worker=worker", "--port=23456"]
  policies:
  - event: PodEvicted
    action: RestartJob
  tasks:
  - name: master
    replicas: 1
    template:
      spec:
        restartPolicy: OnFailure
        containers:
        - name: pytorch
          image: docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727
          resources:
            requests: {cpu: "1", memory: 1Gi}
  - name: worker
    replicas: 2
    policies:
    - exitCode: 137
      action: RestartJob
    template:
      spec:
        restartPolicy: OnFailure
        containers:
        - name: pytorch
          image: docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727
          resources:
            requests: {cpu: "1", memory: 1Gi}
`

var everything = mode{Admit: true, Bind: true, Start: true}

// TestPyTorchJobLifecycle walks one PyTorch job through creation, running,
// an OOM-killed worker under a RestartJob policy, an abort and a resume by
// Command, and success.
func TestPyTorchJobLifecycle(t *testing.T) {
	ns := newNamespace(t, "pytorch")
	startController(t, "ctrl")
	job := createJob(t, ns, pytorchJob)
	phases := recordPhases(t, ns, "mnist")
	pgName := podgroup.Name(job)

	t.Run("created: PodGroup and plugin objects, no pods before admission", func(t *testing.T) {
		waitPhase(t, ns, "mnist", vcjob.Pending, 10*time.Second)
		var pg *podgroup.PodGroup
		eventually(t, 10*time.Second, "PodGroup "+pgName, func() (bool, string) {
			var ok bool
			pg, ok = podGroup(t, ns, pgName)
			return ok, "missing"
		})
		if pg.Spec.MinMember != 3 || pg.Spec.MinTaskMember["master"] != 1 || pg.Spec.MinTaskMember["worker"] != 2 || pg.Spec.Queue != "default" {
			t.Errorf("PodGroup spec %+v", pg.Spec)
		}
		if cpu := (*pg.Spec.MinResources)[corev1.ResourceCPU]; cpu.String() != "3" {
			t.Errorf("minResources cpu %s, want 3", cpu.String())
		}
		if o := metav1.GetControllerOf(pg); o == nil || o.UID != job.UID {
			t.Errorf("PodGroup owner %v, want the job", o)
		}
		svc, err := kube.CoreV1().Services(ns).Get(bg, "mnist", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("svc plugin's Service: %v", err)
		}
		if svc.Spec.ClusterIP != corev1.ClusterIPNone {
			t.Errorf("Service clusterIP %q, want headless", svc.Spec.ClusterIP)
		}
		cm, err := kube.CoreV1().ConfigMaps(ns).Get(bg, "mnist-svc", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("svc plugin's ConfigMap: %v", err)
		}
		if cm.Data["worker.host"] != "mnist-worker-0.mnist\nmnist-worker-1.mnist" || cm.Data["master.host"] != "mnist-master-0.mnist" {
			t.Errorf("ConfigMap data %v", cm.Data)
		}
		if _, err := kube.NetworkingV1().NetworkPolicies(ns).Get(bg, "mnist", metav1.GetOptions{}); err != nil {
			t.Errorf("svc plugin's NetworkPolicy: %v", err)
		}
		time.Sleep(500 * time.Millisecond)
		if pods := jobPods(t, ns, "mnist"); len(pods) != 0 {
			t.Fatalf("pods %s before the PodGroup was admitted", describePods(pods))
		}
	})

	t.Run("admitted: pods with Volcano's labels, annotations and pytorch env", func(t *testing.T) {
		sim.setMode(ns, mode{Admit: true})
		pods := waitPods(t, ns, "mnist", 15*time.Second, "3 pods", func(p []corev1.Pod) bool { return len(p) == 3 })
		for i, p := range pods {
			task, index := "master", 0
			if i > 0 {
				task, index = "worker", i-1
			}
			wantAnn := map[string]string{
				vcjob.TaskSpecKey: task, vcjob.JobNameKey: "mnist", vcjob.QueueNameKey: "default",
				vcjob.JobVersionKey: "0", vcjob.JobRetryCountKey: "0", vcjob.PodGroupNameKey: pgName,
				vcjob.TemplateUIDKey: "mnist-" + task, vcjob.TaskIndexKey: strconv.Itoa(index),
			}
			for k, v := range wantAnn {
				if p.Annotations[k] != v {
					t.Errorf("%s annotation %s=%q, want %q", p.Name, k, p.Annotations[k], v)
				}
			}
			wantLabels := map[string]string{
				vcjob.JobNameKey: "mnist", vcjob.TaskSpecKey: task, vcjob.JobNamespaceKey: ns,
				vcjob.QueueNameKey: "default", vcjob.TaskIndexKey: strconv.Itoa(index),
			}
			for k, v := range wantLabels {
				if p.Labels[k] != v {
					t.Errorf("%s label %s=%q, want %q", p.Name, k, p.Labels[k], v)
				}
			}
			if o := metav1.GetControllerOf(&p); o == nil || o.UID != job.UID || o.Kind != "Job" {
				t.Errorf("%s owner %v", p.Name, o)
			}
			if p.Spec.SchedulerName != "volcano" || p.Spec.Subdomain != "mnist" || p.Spec.Hostname != p.Name {
				t.Errorf("%s scheduler %q hostname %q subdomain %q", p.Name, p.Spec.SchedulerName, p.Spec.Hostname, p.Spec.Subdomain)
			}
			env := map[string]string{}
			for _, e := range p.Spec.Containers[0].Env {
				env[e.Name] = e.Value
			}
			want := map[string]string{"MASTER_ADDR": "mnist-master-0.mnist", "MASTER_PORT": "23456", "WORLD_SIZE": "3", "RANK": strconv.Itoa(i)}
			for k, v := range want {
				if env[k] != v {
					t.Errorf("%s env %s=%q, want %q", p.Name, k, env[k], v)
				}
			}
		}
	})

	t.Run("running: PodGroup Running and pods Running make the job Running", func(t *testing.T) {
		sim.setMode(ns, everything)
		waitPods(t, ns, "mnist", 15*time.Second, "3 running pods", allPods(3, corev1.PodRunning))
		job := waitPhase(t, ns, "mnist", vcjob.Running, 15*time.Second)
		eventually(t, 10*time.Second, "running=3", func() (bool, string) {
			job = getJob(t, ns, "mnist")
			return job.Status.Running == 3, describeStatus(job)
		})
		if pg, _ := podGroup(t, ns, pgName); pg.Status.Phase != podgroup.PhaseRunning {
			t.Errorf("PodGroup phase %s", pg.Status.Phase)
		}
	})

	t.Run("exit code 137 under RestartJob: pods recreated, retryCount 1", func(t *testing.T) {
		before := jobPods(t, ns, "mnist")
		old := map[string]bool{}
		for _, p := range before {
			old[string(p.UID)] = true
		}
		mark := phases.mark()
		setPod(t, ns, "mnist-worker-1", corev1.PodFailed, 137)
		waitJob(t, ns, "mnist", 20*time.Second, "retryCount 1", func(j *vcjob.Job) bool { return j.Status.RetryCount == 1 })
		pods := waitPods(t, ns, "mnist", 30*time.Second, "3 new running pods", func(p []corev1.Pod) bool {
			if !allPods(3, corev1.PodRunning)(p) {
				return false
			}
			for _, q := range p {
				if old[string(q.UID)] {
					return false
				}
			}
			return true
		})
		job := waitPhase(t, ns, "mnist", vcjob.Running, 20*time.Second)
		phases.expectSequence(t, mark, vcjob.Restarting, vcjob.Pending, vcjob.Running)
		if job.Status.RetryCount != 1 || job.Status.Version != 1 {
			t.Errorf("retryCount %d version %d, want 1 and 1", job.Status.RetryCount, job.Status.Version)
		}
		for _, p := range pods {
			if p.Annotations[vcjob.JobVersionKey] != "1" || p.Annotations[vcjob.JobRetryCountKey] != "1" {
				t.Errorf("%s job-version %s retry-count %s, want 1 and 1", p.Name, p.Annotations[vcjob.JobVersionKey], p.Annotations[vcjob.JobRetryCountKey])
			}
		}
	})

	t.Run("Command AbortJob: Aborting then Aborted; ResumeJob: Restarting then Pending", func(t *testing.T) {
		mark := phases.mark()
		cmd := createCommand(t, ns, job, vcjob.AbortJobAction)
		waitPhase(t, ns, "mnist", vcjob.Aborted, 20*time.Second)
		phases.expectSequence(t, mark, vcjob.Aborting, vcjob.Aborted)
		if _, err := dyn.Resource(clients.CommandsResource).Namespace(ns).Get(bg, cmd, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("command %s not consumed: %v", cmd, err)
		}
		waitPods(t, ns, "mnist", 10*time.Second, "no pods", func(p []corev1.Pod) bool { return len(p) == 0 })
		if _, ok := podGroup(t, ns, pgName); ok {
			t.Error("PodGroup still there after the abort")
		}

		mark = phases.mark()
		createCommand(t, ns, job, vcjob.ResumeJobAction)
		waitJob(t, ns, "mnist", 20*time.Second, "retryCount 2 after resume", func(j *vcjob.Job) bool { return j.Status.RetryCount == 2 })
		waitPods(t, ns, "mnist", 30*time.Second, "3 running pods", allPods(3, corev1.PodRunning))
		waitPhase(t, ns, "mnist", vcjob.Running, 20*time.Second)
		phases.expectSequence(t, mark, vcjob.Restarting, vcjob.Pending, vcjob.Running)
	})

	t.Run("all pods Succeeded: Completed, PodGroup gone, pods kept", func(t *testing.T) {
		for _, p := range jobPods(t, ns, "mnist") {
			setPod(t, ns, p.Name, corev1.PodSucceeded, 0)
		}
		job := waitPhase(t, ns, "mnist", vcjob.Completed, 20*time.Second)
		eventually(t, 10*time.Second, "PodGroup deleted", func() (bool, string) {
			_, ok := podGroup(t, ns, pgName)
			return !ok, "still there"
		})
		if pods := jobPods(t, ns, "mnist"); !allPods(3, corev1.PodSucceeded)(pods) {
			t.Errorf("pods %s, want the 3 Succeeded pods retained", describePods(pods))
		}
		t.Logf("phases: %v; final %s", phases.get(), describeStatus(job))
	})
}

const pendingJob = `
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: patient
spec:
  minAvailable: 2
  policies:
  - event: PodPending
    action: AbortJob
    timeout: 2s
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        containers:
        - name: c
          image: busybox
`

// TestPodPendingTimeout: a PodPending policy with a 2 s timeout fires when
// the pods stay Pending, and is cancelled when they start in time.
func TestPodPendingTimeout(t *testing.T) {
	ctrl := startController(t, "ctrl")

	t.Run("fires when pods stay Pending", func(t *testing.T) {
		ns := newNamespace(t, "pending-fires")
		sim.setMode(ns, mode{Admit: true, Bind: true}) // scheduled, never started
		createJob(t, ns, pendingJob)
		pods := waitPods(t, ns, "patient", 15*time.Second, "2 pods", func(p []corev1.Pod) bool { return len(p) == 2 })
		created := pods[0].CreationTimestamp.Time
		job := waitPhase(t, ns, "patient", vcjob.Aborted, 20*time.Second)
		var aborting time.Time
		for _, c := range job.Status.Conditions {
			if c.Status == vcjob.Aborting && c.LastTransitionTime != nil {
				aborting = c.LastTransitionTime.Time
			}
		}
		// Timestamps have second resolution: the abort comes 2 s after the
		// pods appeared, give or take one.
		if d := aborting.Sub(created); d < time.Second || d > 6*time.Second {
			t.Errorf("aborted %s after the pods were created, want about 2s", d)
		}
		m := ctrl.metrics()
		if m[metrics.DelayFired+`{action="AbortJob"}`] < 1 {
			t.Errorf("no delayed AbortJob fired: %v", m)
		}
	})

	t.Run("cancelled when pods start in time", func(t *testing.T) {
		ns := newNamespace(t, "pending-cancel")
		firedBefore := ctrl.metrics()[metrics.DelayFired+`{action="AbortJob"}`]
		cancelledBefore := sum(ctrl.metrics(), metrics.DelayCancelled)
		sim.setMode(ns, everything)
		createJob(t, ns, pendingJob)
		waitPhase(t, ns, "patient", vcjob.Running, 15*time.Second)
		time.Sleep(3 * time.Second) // past the timeout
		job := getJob(t, ns, "patient")
		if job.Status.State.Phase != vcjob.Running {
			t.Errorf("job %s, want it still Running", describeStatus(job))
		}
		m := ctrl.metrics()
		if fired := m[metrics.DelayFired+`{action="AbortJob"}`]; fired != firedBefore {
			t.Errorf("a delayed AbortJob fired (%v -> %v)", firedBefore, fired)
		}
		if c := sum(m, metrics.DelayCancelled) - cancelledBefore; c < 2 {
			t.Errorf("%v delayed actions cancelled, want one per pod (2)", c)
		}
	})
}

const restartJob = `
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: sturdy
spec:
  minAvailable: 2
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        containers:
        - name: c
          image: busybox
`

// TestControllerRestart: the controller (with leader election) is stopped
// while the job runs; its pods finish meanwhile; a new controller takes
// the lease and completes the job from what it finds.
func TestControllerRestart(t *testing.T) {
	ns := newNamespace(t, "restart")
	leArgs := []string{"--leader-elect", "--leader-elect-namespace", ns,
		"--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=200ms"}
	first := startController(t, "first", leArgs...)
	sim.setMode(ns, everything)
	createJob(t, ns, restartJob)
	waitPods(t, ns, "sturdy", 20*time.Second, "2 running pods", allPods(2, corev1.PodRunning))
	waitJob(t, ns, "sturdy", 20*time.Second, "Running with 2 running", func(j *vcjob.Job) bool {
		return j.Status.State.Phase == vcjob.Running && j.Status.Running == 2
	})
	lease, err := kube.CoordinationV1().Leases(ns).Get(bg, "vcjob-controller", metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil {
		t.Fatalf("lease: %v", err)
	}
	firstHolder := *lease.Spec.HolderIdentity

	took := first.stop()
	t.Logf("first controller stopped %s after SIGTERM", took.Round(time.Millisecond))
	for _, p := range jobPods(t, ns, "sturdy") {
		setPod(t, ns, p.Name, corev1.PodSucceeded, 0)
	}
	time.Sleep(time.Second)
	if phase := getJob(t, ns, "sturdy").Status.State.Phase; phase != vcjob.Running {
		t.Fatalf("job %s while no controller runs", phase)
	}

	start := time.Now()
	second := startController(t, "second", leArgs...)
	waitPhase(t, ns, "sturdy", vcjob.Completed, 30*time.Second)
	t.Logf("second controller completed the job %s after starting", time.Since(start).Round(time.Millisecond))
	lease, _ = kube.CoordinationV1().Leases(ns).Get(bg, "vcjob-controller", metav1.GetOptions{})
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == firstHolder {
		t.Errorf("lease holder %v, want the second controller (first was %s)", lease.Spec.HolderIdentity, firstHolder)
	}
	eventually(t, 10*time.Second, "PodGroup deleted", func() (bool, string) {
		_, ok := podGroup(t, ns, podgroup.Name(getJob(t, ns, "sturdy")))
		return !ok, "still there"
	})
	if created := sum(second.metrics(), metrics.PodsCreated); created != 0 {
		t.Errorf("the second controller created %v pods, want none", created)
	}
	if pods := jobPods(t, ns, "sturdy"); !allPods(2, corev1.PodSucceeded)(pods) {
		t.Errorf("pods %s", describePods(pods))
	}
}

const mpiJob = `
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: lm
spec:
  minAvailable: 3
  plugins:
    mpi: ["--master=mpimaster", "--worker=mpiworker"]
  volumes:
  - mountPath: /data
    volumeClaim:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
  tasks:
  - name: mpimaster
    replicas: 1
    template:
      spec:
        containers:
        - name: mpi
          image: mpioperator/mpi-pi:openmpi
  - name: mpiworker
    replicas: 2
    template:
      spec:
        containers:
        - name: mpi
          image: mpioperator/mpi-pi:openmpi
`

// TestMPIJobObjectsAndVolumes: the mpi plugin brings svc and ssh (by
// defaulting), so the job gets a Service, a ConfigMap, a NetworkPolicy and
// an ssh key Secret; its volume gets a claim it owns. A kill deletes the
// plugins' objects again (their OnJobDelete).
func TestMPIJobObjectsAndVolumes(t *testing.T) {
	ns := newNamespace(t, "mpi")
	startController(t, "ctrl")
	sim.setMode(ns, everything)
	job := createJob(t, ns, mpiJob)
	pods := waitPods(t, ns, "lm", 20*time.Second, "3 running pods", allPods(3, corev1.PodRunning))
	waitPhase(t, ns, "lm", vcjob.Running, 20*time.Second)

	// As Volcano: the volume's claim is named <job>-pvc-<12 random> and
	// written back into the job's spec by an update of the job.
	claim := getJob(t, ns, "lm").Spec.Volumes[0].VolumeClaimName
	if !regexp.MustCompile(`^lm-pvc-[0-9a-z]{12}$`).MatchString(claim) {
		t.Fatalf("spec.volumes[0].volumeClaimName %q, want lm-pvc-<12 random>", claim)
	}
	pvc, err := kube.CoreV1().PersistentVolumeClaims(ns).Get(bg, claim, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("claim: %v", err)
	}
	if o := metav1.GetControllerOf(pvc); o == nil || o.UID != job.UID {
		t.Errorf("claim owner %v, want the job", o)
	}
	for _, p := range pods {
		mounted := false
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim {
				mounted = true
			}
		}
		if !mounted {
			t.Errorf("%s does not mount %s", p.Name, claim)
		}
	}
	secret, err := kube.CoreV1().Secrets(ns).Get(bg, "lm-ssh", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("ssh plugin's Secret: %v", err)
	}
	for _, k := range []string{"id_rsa", "id_rsa.pub", "authorized_keys", "config"} {
		if len(secret.Data[k]) == 0 {
			t.Errorf("Secret lacks %s", k)
		}
	}
	for _, name := range []string{"lm"} {
		if _, err := kube.CoreV1().Services(ns).Get(bg, name, metav1.GetOptions{}); err != nil {
			t.Errorf("Service: %v", err)
		}
	}
	master := pods[0]
	env := map[string]string{}
	for _, e := range master.Spec.Containers[0].Env {
		env[e.Name] = e.Value
	}
	if env["MPI_HOST"] != "lm-mpiworker-0.lm,lm-mpiworker-1.lm" {
		t.Errorf("master MPI_HOST %q", env["MPI_HOST"])
	}
	if job := getJob(t, ns, "lm"); len(job.Status.ControlledResources) == 0 {
		t.Errorf("status.controlledResources empty")
	}

	createCommand(t, ns, job, vcjob.TerminateJobAction)
	waitPhase(t, ns, "lm", vcjob.Terminated, 20*time.Second)
	eventually(t, 10*time.Second, "plugin objects deleted", func() (bool, string) {
		var left []string
		if _, err := kube.CoreV1().Services(ns).Get(bg, "lm", metav1.GetOptions{}); err == nil {
			left = append(left, "Service")
		}
		if _, err := kube.CoreV1().ConfigMaps(ns).Get(bg, "lm-svc", metav1.GetOptions{}); err == nil {
			left = append(left, "ConfigMap")
		}
		if _, err := kube.NetworkingV1().NetworkPolicies(ns).Get(bg, "lm", metav1.GetOptions{}); err == nil {
			left = append(left, "NetworkPolicy")
		}
		if _, err := kube.CoreV1().Secrets(ns).Get(bg, "lm-ssh", metav1.GetOptions{}); err == nil {
			left = append(left, "Secret")
		}
		return len(left) == 0, fmt.Sprint(left)
	})
}
