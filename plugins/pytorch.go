package plugins

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
)

// Names and defaults of the pytorch plugin.
const (
	EnvMasterAddr = "MASTER_ADDR"
	EnvMasterPort = "MASTER_PORT"
	EnvWorldSize  = "WORLD_SIZE"
	EnvRank       = "RANK"
	// PytorchPortName names the container port the plugin opens.
	PytorchPortName    = "pytorchjob-port"
	PytorchDefaultPort = 23456
	// PytorchWaitContainer is the init container added to worker pods,
	// with --wait-master-enabled, that waits until the master answers.
	PytorchWaitContainer = "wait-for-master"
	// PytorchWaitImage is its default image (--wait-master-image).
	PytorchWaitImage = "busybox:1.36.1"
	// PytorchDefaultTimeout is how many seconds it waits by default
	// (--wait-master-timeout).
	PytorchDefaultTimeout = 300
)

type pytorchPlugin struct {
	*mode
	masterWorker
	wait      bool
	timeout   int
	waitImage string
}

// NewPytorch builds the pytorch plugin. Arguments:
//
//	--master               name of the master task, default master
//	--worker               name of the worker task, default worker
//	--port                 the master port opened in every container, default 23456
//	--wait-master-enabled  add the wait-for-master init container to worker pods, default false
//	--wait-master-timeout  seconds it waits for the master, default 300
//	--wait-master-image    its image, default busybox:1.36.1
func NewPytorch(args []string) (Plugin, error) {
	return newPytorch(args, strictMode())
}

func newPytorch(args []string, m *mode) (Plugin, error) {
	name := vcjob.PluginPytorch
	p := &pytorchPlugin{mode: m}
	fs := newFlagSet(name)
	p.flags(fs, PytorchDefaultPort, "port opened for the master")
	fs.BoolVar(&p.wait, "wait-master-enabled", false, "add an init container to worker pods that waits for the master")
	fs.IntVar(&p.timeout, "wait-master-timeout", PytorchDefaultTimeout, "seconds workers wait for the master")
	fs.StringVar(&p.waitImage, "wait-master-image", PytorchWaitImage, "image of the wait-for-master init container")
	if err := m.parse(name, fs, args); err != nil {
		return nil, err
	}
	if err := m.tolerate(p.check(name, fs, args)); err != nil {
		return nil, err
	}
	if p.timeout <= 0 {
		return nil, &ArgError{Plugin: name, Arg: argFor(fs, args, "wait-master-timeout"), Reason: "must be positive"}
	}
	if err := m.tolerate(checkNonEmpty(name, fs, args, "wait-master-image", p.waitImage)); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *pytorchPlugin) Name() string { return vcjob.PluginPytorch }

// OnPodCreate does nothing when the job has no master task. Otherwise, in
// every container it opens the port (unless already exposed) and sets
// MASTER_ADDR (the master's pod 0 host name), MASTER_PORT, WORLD_SIZE (the
// master and worker replicas together) and, for master and worker pods,
// RANK (0 for the master, index+1 for a worker). Worker pods also get the
// wait-for-master init container when --wait-master-enabled.
func (p *pytorchPlugin) OnPodCreate(pod *corev1.Pod, job *vcjob.Job) error {
	if err := checkPod(p.Name(), pod, job); err != nil {
		return err
	}
	master, ok := findTask(job, p.master)
	if !ok {
		return nil // as Volcano: logged, pod left alone
	}
	task := taskOf(pod)
	rank := ""
	switch task {
	case p.worker:
		i, err := podIndexNumber(p.Name(), pod)
		if err != nil {
			return err
		}
		rank = strconv.Itoa(i + 1)
	case p.master:
		rank = "0"
	}
	var world int32
	for _, ts := range job.Spec.Tasks {
		if ts.Name == p.master || ts.Name == p.worker {
			world += ts.Replicas
		}
	}
	addr := hostName(job, master, 0)
	port := strconv.Itoa(p.port)
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		openPort(c, PytorchPortName, int32(p.port))
		p.setEnv(c, corev1.EnvVar{Name: EnvMasterAddr, Value: addr})
		p.setEnv(c, corev1.EnvVar{Name: EnvMasterPort, Value: port})
		p.setEnv(c, corev1.EnvVar{Name: EnvWorldSize, Value: strconv.Itoa(int(world))})
		if rank != "" {
			p.setEnv(c, corev1.EnvVar{Name: EnvRank, Value: rank})
		}
	}
	if task == p.worker && p.wait {
		setInitContainer(pod, corev1.Container{
			Name:    PytorchWaitContainer,
			Image:   p.waitImage,
			Command: []string{"sh", "-c", waitForMasterScript(addr, p.port, p.timeout)},
		})
	}
	return nil
}

// waitForMasterScript is the wait-for-master init container's script,
// word for word what Volcano writes: it polls the master's port with nc
// or bash's /dev/tcp every 2 seconds and gives up after timeout seconds.
func waitForMasterScript(addr string, port, timeout int) string {
	return fmt.Sprintf(`echo "Waiting for master node %[1]s:%[2]d to be ready..."
TIMEOUT=%[3]d
ELAPSED=0
until { nc -z %[1]s %[2]d || echo > /dev/tcp/%[1]s/%[2]d; } 2>/dev/null; do
  if [ $ELAPSED -ge $TIMEOUT ]; then
    echo "Timeout waiting for master after ${TIMEOUT} seconds"
    exit 1
  fi
  echo "Master not ready yet, retrying in 2 seconds... (elapsed: ${ELAPSED}s)"
  sleep 2
  ELAPSED=$((ELAPSED + 2))
done
echo "Master node is ready!"`, addr, port, timeout)
}

// setInitContainer appends c to the pod's init containers; when one of
// that name is there already its image and command are set to c's and the
// rest of it (say, env another plugin added) is kept.
func setInitContainer(pod *corev1.Pod, c corev1.Container) {
	for i := range pod.Spec.InitContainers {
		if ic := &pod.Spec.InitContainers[i]; ic.Name == c.Name {
			ic.Image, ic.Command = c.Image, c.Command
			return
		}
	}
	pod.Spec.InitContainers = append(pod.Spec.InitContainers, c)
}

func (p *pytorchPlugin) OnJobAdd(job *vcjob.Job) (Objects, error) { return recordOnly(p.Name(), job) }

func (p *pytorchPlugin) OnJobUpdate(job *vcjob.Job) (Objects, error) {
	return Objects{}, checkJob(p.Name(), job)
}

func (p *pytorchPlugin) OnJobDelete(job *vcjob.Job) (Objects, error) {
	return unrecordOnly(p.Name(), job)
}
