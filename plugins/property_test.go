package plugins

import (
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
)

// argChoices are valid argument vectors per built-in, picked at random.
var argChoices = map[string][][]string{
	"env": {nil},
	"svc": {nil, {"--publish-not-ready-addresses=true"}, {"--disable-network-policy"}, {"--inject-hosts-env=false"},
		{"--network-policy-strategy=drop", "--disable-network-policy=false"}},
	"ssh":        {nil, {"--ssh-key-file-path=/home/u/.ssh"}, {"--ssh-port=2222"}, {"--ssh-private-key=K", "--ssh-public-key=P"}},
	"pytorch":    {nil, {"--master=head", "--worker=ps"}, {"--port=22"}, {"--wait-master-enabled=true"}, {"--worker=master", "--master=worker"}},
	"tensorflow": {nil, {"--ps=head", "--worker=master"}, {"--port=23456", "--chief=worker"}},
	"mpi":        {nil, {"--master=head", "--worker=master"}, {"--port=6379"}},
	"ray":        {nil, {"--head=master", "--headContainer=main"}, {"--worker=ps", "--workerContainer=c1", "--port=22"}},
	"hcclrank":   {nil, {"--master=ps", "--worker=head"}},
}

var (
	taskNames      = []string{"master", "worker", "ps", "head", "launcher-x"}
	containerNames = []string{"main", "head", "worker", "master", "c1"}
	presetEnv      = []string{"RANK", "VC_TASK_INDEX", "MASTER_PORT", "TF_CONFIG", "VC_PS_HOSTS", "OTHER"}
	presetPorts    = []int32{22, 2222, 6379, 8265, 23456}
)

// genJob draws a small job: one to three distinctly named tasks of zero to
// three replicas, each with one or two containers that may carry env and
// ports, maybe an init container, maybe a template hostname or subdomain,
// and a status that may already record some plugins.
func genJob(t *rapid.T) *vcjob.Job {
	names := rapid.SliceOfNDistinct(rapid.SampledFrom(taskNames), 1, 3, rapid.ID[string]).Draw(t, "tasks")
	var tasks []vcjob.TaskSpec
	for _, n := range names {
		ts := vcjob.TaskSpec{Name: n, Replicas: int32(rapid.IntRange(0, 3).Draw(t, n+"/replicas"))}
		cs := rapid.SliceOfNDistinct(rapid.SampledFrom(containerNames), 1, 2, rapid.ID[string]).Draw(t, n+"/containers")
		for _, cn := range cs {
			c := corev1.Container{Name: cn, Image: "img"}
			for _, e := range rapid.SliceOfNDistinct(rapid.SampledFrom(presetEnv), 0, 2, rapid.ID[string]).Draw(t, n+cn+"/env") {
				c.Env = append(c.Env, corev1.EnvVar{Name: e, Value: "preset"})
			}
			for _, p := range rapid.SliceOfNDistinct(rapid.SampledFrom(presetPorts), 0, 2, rapid.ID[int32]).Draw(t, n+cn+"/ports") {
				c.Ports = append(c.Ports, corev1.ContainerPort{Name: fmt.Sprintf("p%d", p), ContainerPort: p})
			}
			ts.Template.Spec.Containers = append(ts.Template.Spec.Containers, c)
		}
		if rapid.Bool().Draw(t, n+"/init") {
			ts.Template.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "img"}}
		}
		if rapid.IntRange(0, 4).Draw(t, n+"/hostname") == 0 {
			ts.Template.Spec.Hostname = "fixed"
		}
		if rapid.IntRange(0, 4).Draw(t, n+"/subdomain") == 0 {
			ts.Template.Spec.Subdomain = "sub"
		}
		tasks = append(tasks, ts)
	}
	job := newJob(rapid.SampledFrom([]string{"j", "train-job"}).Draw(t, "job"), nil, tasks...)
	switch rapid.IntRange(0, 2).Draw(t, "status") {
	case 1:
		job.Status.ControlledResources = map[string]string{}
	case 2:
		job.Status.ControlledResources = map[string]string{}
		for _, n := range rapid.SliceOfNDistinct(rapid.SampledFrom(vcjob.BuiltinPluginNames()), 0, 3, rapid.ID[string]).Draw(t, "recorded") {
			job.Status.ControlledResources[ControlledResourceKey(n)] = n
		}
	}
	return job
}

func genPlugin(t *rapid.T, name string) Plugin {
	args := rapid.SampledFrom(argChoices[name]).Draw(t, name+"/args")
	b, ok := NewRegistry(append([]Option{WithSSHKeys(TestKeySource())}, vcjobChoices...)...).Builder(name)
	if !ok {
		t.Fatalf("no builder %s", name)
	}
	p, err := b(args)
	if err != nil {
		t.Fatalf("build %s %v: %v", name, args, err)
	}
	return p
}

// checkPodIdempotent runs OnPodCreate on a copy of pod, then again on a
// copy of the result: both must fail or both succeed with equal pods, and
// the result may hold no duplicate env names, volumes, mounts or ports.
func checkPodIdempotent(p Plugin, pod *corev1.Pod, job *vcjob.Job) error {
	once := pod.DeepCopy()
	err1 := p.OnPodCreate(once, job.DeepCopy())
	twice := once.DeepCopy()
	err2 := p.OnPodCreate(twice, job.DeepCopy())
	if (err1 == nil) != (err2 == nil) {
		return fmt.Errorf("%s: first run err=%v, second run err=%v", p.Name(), err1, err2)
	}
	if err1 != nil {
		return nil
	}
	if !equality.Semantic.DeepEqual(once, twice) {
		return fmt.Errorf("%s: OnPodCreate twice differs from once:\nonce:  %+v\ntwice: %+v", p.Name(), once.Spec, twice.Spec)
	}
	return noDuplicates(twice)
}

func noDuplicates(pod *corev1.Pod) error {
	seen := map[string]bool{}
	for _, v := range pod.Spec.Volumes {
		if seen[v.Name] {
			return fmt.Errorf("volume %q twice", v.Name)
		}
		seen[v.Name] = true
	}
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		env, mounts, ports := map[string]bool{}, map[string]bool{}, map[int32]bool{}
		for _, e := range c.Env {
			if env[e.Name] {
				return fmt.Errorf("container %q: env %q twice", c.Name, e.Name)
			}
			env[e.Name] = true
		}
		for _, m := range c.VolumeMounts {
			if mounts[m.MountPath] {
				return fmt.Errorf("container %q: mount path %q twice", c.Name, m.MountPath)
			}
			mounts[m.MountPath] = true
		}
		for _, p := range c.Ports {
			if ports[p.ContainerPort] {
				return fmt.Errorf("container %q: port %d twice", c.Name, p.ContainerPort)
			}
			ports[p.ContainerPort] = true
		}
	}
	return nil
}

type jobHook func(Plugin) func(*vcjob.Job) (Objects, error)

var jobHooks = map[string]jobHook{
	"OnJobAdd":    func(p Plugin) func(*vcjob.Job) (Objects, error) { return p.OnJobAdd },
	"OnJobUpdate": func(p Plugin) func(*vcjob.Job) (Objects, error) { return p.OnJobUpdate },
	"OnJobDelete": func(p Plugin) func(*vcjob.Job) (Objects, error) { return p.OnJobDelete },
}

// checkJobHookIdempotent runs a job hook on a copy of job, then again on
// the result. The second run must leave the job as the first left it, and
// ask for nothing the first did not (so applying both equals applying the
// first); neither may change anything but status.controlledResources.
func checkJobHookIdempotent(p Plugin, hookName string, job *vcjob.Job) error {
	hook := jobHooks[hookName](p)
	once := job.DeepCopy()
	o1, err1 := hook(once)
	twice := once.DeepCopy()
	o2, err2 := hook(twice)
	if (err1 == nil) != (err2 == nil) {
		return fmt.Errorf("%s.%s: first err=%v, second err=%v", p.Name(), hookName, err1, err2)
	}
	if !equality.Semantic.DeepEqual(once, twice) {
		return fmt.Errorf("%s.%s: job after two runs %v differs from after one %v", p.Name(), hookName,
			twice.Status.ControlledResources, once.Status.ControlledResources)
	}
	for _, obj := range o2.Apply {
		found := false
		for _, prev := range o1.Apply {
			found = found || equality.Semantic.DeepEqual(obj, prev)
		}
		if !found {
			return fmt.Errorf("%s.%s: second run applies %T not applied by the first", p.Name(), hookName, obj)
		}
	}
	for _, ref := range o2.Delete {
		found := false
		for _, prev := range o1.Delete {
			found = found || ref == prev
		}
		if !found {
			return fmt.Errorf("%s.%s: second run deletes %s not deleted by the first", p.Name(), hookName, ref)
		}
	}
	// Only controlledResources may change.
	a, b := job.DeepCopy(), once.DeepCopy()
	a.Status.ControlledResources, b.Status.ControlledResources = nil, nil
	if !reflect.DeepEqual(a, b) {
		return fmt.Errorf("%s.%s changed more than status.controlledResources", p.Name(), hookName)
	}
	return nil
}

func TestEveryHookIsIdempotent(t *testing.T) {
	names := vcjob.BuiltinPluginNames()
	sort.Strings(names)
	podRuns, changedPods := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		job := genJob(t)
		name := rapid.SampledFrom(names).Draw(t, "plugin")
		p := genPlugin(t, name)

		ts := job.Spec.Tasks[rapid.IntRange(0, len(job.Spec.Tasks)-1).Draw(t, "task")]
		index := rapid.IntRange(0, int(max(ts.Replicas, 1))-1).Draw(t, "index")
		pod := podFor(job, ts.Name, index)
		if err := checkPodIdempotent(p, pod, job); err != nil {
			t.Fatal(err)
		}
		podRuns++
		probe := pod.DeepCopy()
		if p.OnPodCreate(probe, job) == nil && !equality.Semantic.DeepEqual(probe, pod) {
			changedPods++
		}
		for _, h := range []string{"OnJobAdd", "OnJobUpdate", "OnJobDelete"} {
			if err := checkJobHookIdempotent(p, h, job); err != nil {
				t.Fatal(err)
			}
		}
	})
	// The generator must produce pods the plugins actually change, or the
	// property says nothing.
	assert.Greater(t, changedPods, podRuns/2, "most generated pods should be changed by the plugin")
}

// appendingPlugin appends instead of setting: the checks must catch it.
type appendingPlugin struct{ envPlugin }

func (appendingPlugin) OnPodCreate(pod *corev1.Pod, _ *vcjob.Job) error {
	pod.Spec.Containers[0].Env = append(pod.Spec.Containers[0].Env, corev1.EnvVar{Name: "X", Value: "1"})
	return nil
}

func (appendingPlugin) OnJobAdd(job *vcjob.Job) (Objects, error) {
	if job.Status.ControlledResources == nil {
		job.Status.ControlledResources = map[string]string{}
	}
	job.Status.ControlledResources[fmt.Sprint("plugin-", len(job.Status.ControlledResources))] = "x"
	return Objects{}, nil
}

func (appendingPlugin) OnJobUpdate(job *vcjob.Job) (Objects, error) {
	job.Spec.MinAvailable++
	return Objects{}, nil
}

// flippingPlugin asks for something new on every run.
type flippingPlugin struct {
	envPlugin
	n *int
}

func (f flippingPlugin) OnJobDelete(job *vcjob.Job) (Objects, error) {
	*f.n++
	return Objects{Delete: []ObjectRef{{Kind: "Secret", Name: fmt.Sprint(*f.n)}}}, nil
}

func TestIdempotencyChecksCatchViolations(t *testing.T) {
	job := envJob()
	pod := podFor(job, "ps", 0)
	require.Error(t, checkPodIdempotent(appendingPlugin{}, pod, job))
	require.Error(t, checkJobHookIdempotent(appendingPlugin{}, "OnJobAdd", job))
	require.Error(t, checkJobHookIdempotent(appendingPlugin{}, "OnJobUpdate", job))
	require.Error(t, checkJobHookIdempotent(flippingPlugin{n: new(int)}, "OnJobDelete", job))

	dup := pod.DeepCopy()
	dup.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 1}, {ContainerPort: 1}}
	require.Error(t, noDuplicates(dup))

	// And the real plugins pass on the same inputs.
	require.NoError(t, checkPodIdempotent(envPlugin{choices()}, pod, job))
	require.NoError(t, checkJobHookIdempotent(envPlugin{choices()}, "OnJobAdd", job))
}
