package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/vcjob/vcjob"
)

// rayJob is Volcano's ray example: a head and two workers, the head pod
// with a log sidecar.
func rayJob() *vcjob.Job {
	return newJob("ray-cluster-job", map[string][]string{"ray": nil, "svc": nil},
		task("head", 1, "head", "logs"), task("worker", 2, "worker"))
}

func TestRayPods(t *testing.T) {
	job := rayJob()
	p := mustBuild(t, "ray")

	head := created(t, p, job, "head", 0)
	assert.Equal(t, []string{"sh", "-c", "ray start --head --block --dashboard-host=0.0.0.0 --port=6379 --dashboard-port=8265 --ray-client-server-port=10001"},
		head.Spec.Containers[0].Command)
	assert.Equal(t, []corev1.ContainerPort{
		{Name: "gcs", ContainerPort: 6379},
		{Name: "dashboard", ContainerPort: 8265},
		{Name: "client-server", ContainerPort: 10001},
	}, head.Spec.Containers[0].Ports)
	assert.Nil(t, head.Spec.Containers[1].Command, "only the head container is changed")
	assert.Empty(t, head.Spec.Containers[1].Ports)

	for i := 0; i < 2; i++ {
		w := created(t, p, job, "worker", i)
		assert.Equal(t, []string{"sh", "-c", "ray start --block --address=ray-cluster-job-head-0.ray-cluster-job:6379"}, w.Spec.Containers[0].Command)
		assert.Empty(t, w.Spec.Containers[0].Ports)
	}
}

func TestRayArguments(t *testing.T) {
	job := newJob("rc", nil, task("driver", 1, "ray-head"), task("exec", 1, "ray-worker", "other"))
	job.Spec.Tasks[0].Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "ui", ContainerPort: 9000}}
	p := mustBuild(t, "ray", "--head=driver", "--headContainer=ray-head", "--worker=exec", "--workerContainer=ray-worker",
		"--port=7000", "--dashboardPort=9000", "--clientPort=10002")

	head := created(t, p, job, "driver", 0)
	assert.Equal(t, "ray start --head --block --dashboard-host=0.0.0.0 --port=7000 --dashboard-port=9000 --ray-client-server-port=10002", head.Spec.Containers[0].Command[2])
	assert.Equal(t, []corev1.ContainerPort{
		{Name: "ui", ContainerPort: 9000}, // already exposed: kept, not duplicated
		{Name: "gcs", ContainerPort: 7000},
		{Name: "client-server", ContainerPort: 10002},
	}, head.Spec.Containers[0].Ports)

	w := created(t, p, job, "exec", 0)
	assert.Equal(t, "ray start --block --address=rc-driver-0.rc:7000", w.Spec.Containers[0].Command[2])
	assert.Nil(t, w.Spec.Containers[1].Command)

	objs, err := p.OnJobAdd(job)
	require.NoError(t, err)
	svc := objs.Apply[0].(*corev1.Service)
	assert.Equal(t, "driver", svc.Spec.Selector["volcano.sh/task-spec"])
	assert.Equal(t, []int32{7000, 9000, 10002}, []int32{svc.Spec.Ports[0].Port, svc.Spec.Ports[1].Port, svc.Spec.Ports[2].Port})
}

func TestRayJobHooks(t *testing.T) {
	job := rayJob()
	p := mustBuild(t, "ray")
	objs, err := p.OnJobAdd(job)
	require.NoError(t, err)
	want := &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ray-cluster-job-head-svc", Labels: jobLabels(job),
			OwnerReferences: ownerRef(job)},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{
				"volcano.sh/job-name": "ray-cluster-job", "volcano.sh/job-namespace": "ns", "volcano.sh/task-spec": "head",
			},
			Ports: []corev1.ServicePort{
				{Name: "gcs", Port: 6379, TargetPort: intstr.FromString("gcs"), Protocol: corev1.ProtocolTCP},
				{Name: "dashboard", Port: 8265, TargetPort: intstr.FromString("dashboard"), Protocol: corev1.ProtocolTCP},
				{Name: "client-server", Port: 10001, TargetPort: intstr.FromString("client-server"), Protocol: corev1.ProtocolTCP},
			},
		},
	}
	assert.Equal(t, []runtime.Object{want}, objs.Apply)
	assert.Equal(t, map[string]string{"plugin-ray": "ray"}, job.Status.ControlledResources)

	again, err := p.OnJobAdd(job)
	require.NoError(t, err)
	assert.True(t, again.Empty())

	del, err := p.OnJobDelete(job)
	require.NoError(t, err)
	assert.Equal(t, []ObjectRef{{APIVersion: "v1", Kind: "Service", Namespace: "ns", Name: "ray-cluster-job-head-svc"}}, del.Delete)
	assert.Empty(t, job.Status.ControlledResources)
}

func TestRayErrors(t *testing.T) {
	job := newJob("nohead", nil, task("worker", 1, "worker"))
	p := mustBuild(t, "ray")
	err := p.OnPodCreate(podFor(job, "worker", 0), job)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no head task "head"`)

	for _, args := range [][]string{{"--clientServerPort=10001"}, {"--dashboardPort=0"}, {"--headContainer="}} {
		_, err := NewRay(args)
		require.Error(t, err, args)
		assert.Contains(t, err.Error(), `argument "`+args[0]+`"`)
	}
}
