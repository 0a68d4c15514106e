package validation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
)

func baseTemplate() *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Volumes:    []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		Containers: []corev1.Container{{Name: "main", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
	}}
}

func rl(pairs ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		l[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return l
}

// The rules of Kubernetes' pod template validation that vcjob covers, one
// case each, with Kubernetes' field paths (validation/podvalidation checks
// them against Kubernetes' own code).
func TestValidatePodTemplateSpec(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(t *corev1.PodTemplateSpec)
		want   []wantErr
	}{
		{"valid", func(*corev1.PodTemplateSpec) {}, nil},
		{"empty template", func(t *corev1.PodTemplateSpec) { *t = corev1.PodTemplateSpec{} },
			[]wantErr{{field.ErrorTypeRequired, "t.spec.containers"}}},
		{"no image", func(t *corev1.PodTemplateSpec) { t.Spec.Containers[0].Image = "" },
			[]wantErr{{field.ErrorTypeRequired, "t.spec.containers[0].image"}}},
		{"duplicate container names", func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers = append(t.Spec.Containers, corev1.Container{Name: "main", Image: "x"})
		}, []wantErr{{field.ErrorTypeDuplicate, "t.spec.containers[1].name"}}},
		{"init container named like a container", func(t *corev1.PodTemplateSpec) {
			t.Spec.InitContainers = []corev1.Container{{Name: "main", Image: "x"}}
		}, []wantErr{{field.ErrorTypeDuplicate, "t.spec.initContainers[0].name"}}},
		{"container name not a DNS label", func(t *corev1.PodTemplateSpec) { t.Spec.Containers[0].Name = "Main" },
			[]wantErr{{field.ErrorTypeInvalid, "t.spec.containers[0].name"}}},
		{"restartPolicy Sometimes", func(t *corev1.PodTemplateSpec) { t.Spec.RestartPolicy = "Sometimes" },
			[]wantErr{{field.ErrorTypeNotSupported, "t.spec.restartPolicy"}}},
		{"port out of range, bad name, bad protocol", func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "Http_Port", ContainerPort: 70000, Protocol: "HTTP"}}
		}, []wantErr{
			{field.ErrorTypeInvalid, "t.spec.containers[0].ports[0].name"},
			{field.ErrorTypeInvalid, "t.spec.containers[0].ports[0].containerPort"},
			{field.ErrorTypeNotSupported, "t.spec.containers[0].ports[0].protocol"},
		}},
		{"env name", func(t *corev1.PodTemplateSpec) { t.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "1A B"}, {}} },
			[]wantErr{{field.ErrorTypeInvalid, "t.spec.containers[0].env[0].name"}, {field.ErrorTypeRequired, "t.spec.containers[0].env[1].name"}}},
		{"mount of an unknown volume", func(t *corev1.PodTemplateSpec) { t.Spec.Containers[0].VolumeMounts[0].Name = "other" },
			[]wantErr{{field.ErrorTypeNotFound, "t.spec.containers[0].volumeMounts[0].name"}}},
		{"mount of an invalid volume", func(t *corev1.PodTemplateSpec) {
			t.Spec.Volumes[0].HostPath = &corev1.HostPathVolumeSource{Path: "/x"}
		}, []wantErr{{field.ErrorTypeForbidden, "t.spec.volumes[0].hostPath"}, {field.ErrorTypeNotFound, "t.spec.containers[0].volumeMounts[0].name"}}},
		{"extended resource without a limit", func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Resources.Requests = rl("nvidia.com/gpu", "1")
		}, []wantErr{{field.ErrorTypeRequired, "t.spec.containers[0].resources.limits"}}},
		{"extended resource with a different limit", func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: rl("nvidia.com/gpu", "1"), Limits: rl("nvidia.com/gpu", "2")}
		}, []wantErr{{field.ErrorTypeInvalid, "t.spec.containers[0].resources.requests"}}},
		{"extended resource limit only (the pod's defaults copy it)", func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Resources.Limits = rl("nvidia.com/gpu", "1")
		}, nil},
		{"cpu request above its limit", func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: rl("cpu", "2"), Limits: rl("cpu", "1")}
		}, []wantErr{{field.ErrorTypeInvalid, "t.spec.containers[0].resources.requests"}}},
		{"pod-level requests below the containers'", func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Resources.Requests = rl("cpu", "2")
			t.Spec.Resources = &corev1.ResourceRequirements{Requests: rl("cpu", "1")}
		}, []wantErr{{field.ErrorTypeInvalid, "t.spec.resources.requests[cpu]"}}},
		{"pod-level limit below a container's", func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Resources.Limits = rl("memory", "2Gi")
			t.Spec.Resources = &corev1.ResourceRequirements{Limits: rl("memory", "1Gi")}
		}, []wantErr{{field.ErrorTypeInvalid, "t.spec.resources.containers[0][memory].limits"}}},
		{"liveness probe without a handler, successThreshold 2", func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].LivenessProbe = &corev1.Probe{SuccessThreshold: 2}
		}, []wantErr{{field.ErrorTypeRequired, "t.spec.containers[0].livenessProbe"}, {field.ErrorTypeInvalid, "t.spec.containers[0].livenessProbe.successThreshold"}}},
		{"probe with two handlers", func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
				Exec: &corev1.ExecAction{Command: []string{"true"}}, TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(22)}}}
		}, []wantErr{{field.ErrorTypeForbidden, "t.spec.containers[0].readinessProbe.tcpSocket"}}},
		{"init container restartPolicy Never", func(t *corev1.PodTemplateSpec) {
			never := corev1.ContainerRestartPolicy("Never")
			t.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "x", RestartPolicy: &never}}
		}, []wantErr{{field.ErrorTypeNotSupported, "t.spec.initContainers[0].restartPolicy"}}},
		{"env valueFrom beside a value, and without a source", func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Env = []corev1.EnvVar{
				{Name: "A", Value: "v", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
				{Name: "B", ValueFrom: &corev1.EnvVarSource{}},
				{Name: "C", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{}}},
			}
		}, []wantErr{{field.ErrorTypeInvalid, "t.spec.containers[0].env[0].valueFrom"}, {field.ErrorTypeInvalid, "t.spec.containers[0].env[1].valueFrom"},
			{field.ErrorTypeInvalid, "t.spec.containers[0].env[2].valueFrom.secretKeyRef.name"}, {field.ErrorTypeRequired, "t.spec.containers[0].env[2].valueFrom.secretKeyRef.key"}}},
		{"tolerations", func(t *corev1.PodTemplateSpec) {
			t.Spec.Tolerations = []corev1.Toleration{
				{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
				{Key: "k", Operator: corev1.TolerationOpExists, Value: "v", Effect: "NoSchedul"},
				{Value: "x"},
			}
		}, []wantErr{{field.ErrorTypeInvalid, "t.spec.tolerations[1].operator"}, {field.ErrorTypeNotSupported, "t.spec.tolerations[1].effect"},
			{field.ErrorTypeInvalid, "t.spec.tolerations[2].operator"}}},
		{"pod-level extended resource", func(t *corev1.PodTemplateSpec) {
			t.Spec.Resources = &corev1.ResourceRequirements{Limits: rl("nvidia.com/gpu", "1")}
		}, []wantErr{{field.ErrorTypeNotSupported, "t.spec.resources.limits[nvidia.com/gpu]"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tpl := baseTemplate()
			tc.mutate(tpl)
			got := keysOf(ValidatePodTemplateSpec(tpl, field.NewPath("t")))
			if tc.want == nil {
				tc.want = []wantErr{}
			}
			assert.ElementsMatch(t, tc.want, got)
		})
	}
}

func TestPluggedPodTemplateValidator(t *testing.T) {
	job := volcanoJob("plugged")
	job.Spec.Tasks[0].Template.Spec.Containers[0].Image = "" // the built-in validation refuses it
	var seen []string
	opts := Options{PodTemplate: func(tpl *corev1.PodTemplateSpec, p *field.Path) field.ErrorList {
		seen = append(seen, p.String())
		return field.ErrorList{field.Invalid(p.Child("spec", "hostname"), "x", "a rule of mine")}
	}}
	errs := ValidateJobWith(job, opts)
	assert.Equal(t, []string{"spec.tasks[0].template"}, seen)
	assert.Equal(t, []wantErr{{field.ErrorTypeInvalid, "spec.tasks[0].template.spec.hostname"}}, keysOf(errs))
	assert.NotEmpty(t, ValidateJob(job))
}

func TestMPIMasterArgument(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		tasks []string
		admit bool
	}{
		{nil, []string{"master", "worker"}, true},
		{nil, []string{"launcher"}, false}, // default master
		{[]string{"--master=launcher"}, []string{"launcher"}, true},
		{[]string{"-master", "launcher"}, []string{"launcher"}, true},
		{[]string{"--master=a", "--master=b"}, []string{"a"}, false}, // the last one wins
		{[]string{"--worker=w"}, []string{"master"}, true},           // no worker needed
	} {
		job := volcanoJob("mpi")
		job.Spec.Plugins = map[string][]string{vcjob.PluginMPI: tc.args}
		var tasks []vcjob.TaskSpec
		for _, name := range tc.tasks {
			task := job.Spec.Tasks[0]
			task.Name = name
			tasks = append(tasks, task)
		}
		job.Spec.Tasks = tasks
		errs := ValidateJob(job)
		assert.Equal(t, tc.admit, len(errs) == 0, "args %v tasks %v: %v", tc.args, tc.tasks, errs)
	}
}
