package podvalidation

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"pgregory.net/rapid"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/internal/testfiles"
	"github.com/vcjob/vcjob/manifest"
	"github.com/vcjob/vcjob/validation"
)

// generated is how many templates the property test generates, unless
// -rapid.checks says otherwise.
const generated = 3000

var templatePath = field.NewPath("spec", "tasks").Index(0).Child("template")

// errorKey is what the two validations must agree on: the error type and
// the field path, as a set.
func errorKeys(errs field.ErrorList) []string {
	set := map[string]bool{}
	for _, e := range errs {
		set[string(e.Type)+" "+e.Field] = true
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// compare runs both validations on tpl and reports where they differ.
func compare(tpl *corev1.PodTemplateSpec) (ours, theirs []string, same bool) {
	before := tpl.DeepCopy()
	oursErrs := validation.ValidatePodTemplateSpec(tpl, templatePath)
	theirsErrs := Kubernetes(tpl, templatePath)
	if !equalTemplates(before, tpl) {
		return nil, nil, false
	}
	ours, theirs = errorKeys(oursErrs), errorKeys(theirsErrs)
	return ours, theirs, slices.Equal(ours, theirs)
}

func equalTemplates(a, b *corev1.PodTemplateSpec) bool {
	return a.String() == b.String()
}

func q(s string) resource.Quantity { return resource.MustParse(s) }

func list(pairs ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		l[corev1.ResourceName(pairs[i])] = q(pairs[i+1])
	}
	return l
}

func base() *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "train"}},
		Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			Containers: []corev1.Container{{Name: "main", Image: "busybox:1.36",
				VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
		},
	}
}

// fixedCases are one template per rule vcjob covers, plus the templates of
// Volcano's webhook tests.
func fixedCases() map[string]func(t *corev1.PodTemplateSpec) {
	c0 := func(t *corev1.PodTemplateSpec) *corev1.Container { return &t.Spec.Containers[0] }
	restartAlways := corev1.ContainerRestartPolicyAlways
	return map[string]func(t *corev1.PodTemplateSpec){
		"valid":                     func(*corev1.PodTemplateSpec) {},
		"empty template":            func(t *corev1.PodTemplateSpec) { *t = corev1.PodTemplateSpec{} },
		"no containers":             func(t *corev1.PodTemplateSpec) { t.Spec.Containers = nil },
		"no image":                  func(t *corev1.PodTemplateSpec) { c0(t).Image = "" },
		"no container name":         func(t *corev1.PodTemplateSpec) { c0(t).Name = "" },
		"container name upper case": func(t *corev1.PodTemplateSpec) { c0(t).Name = "Main" },
		"container name too long":   func(t *corev1.PodTemplateSpec) { c0(t).Name = strings.Repeat("a", 64) },
		"duplicate container names": func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers = append(t.Spec.Containers, corev1.Container{Name: "main", Image: "x"})
		},
		"two unnamed containers": func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers = []corev1.Container{{Image: "x"}, {Image: "y"}}
		},
		"init container named like a container": func(t *corev1.PodTemplateSpec) {
			t.Spec.InitContainers = []corev1.Container{{Name: "main", Image: "x"}}
		},
		"two unnamed init containers": func(t *corev1.PodTemplateSpec) {
			t.Spec.InitContainers = []corev1.Container{{Image: "x"}, {Image: "y"}}
		},
		"init container with probes": func(t *corev1.PodTemplateSpec) {
			t.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "x", LivenessProbe: &corev1.Probe{}, Lifecycle: &corev1.Lifecycle{}}}
		},
		"restartPolicy on a regular container": func(t *corev1.PodTemplateSpec) { c0(t).RestartPolicy = &restartAlways },
		"restartPolicy Sometimes":              func(t *corev1.PodTemplateSpec) { t.Spec.RestartPolicy = "Sometimes" },
		"restartPolicy OnFailure":              func(t *corev1.PodTemplateSpec) { t.Spec.RestartPolicy = corev1.RestartPolicyOnFailure },
		"dnsPolicy Bogus":                      func(t *corev1.PodTemplateSpec) { t.Spec.DNSPolicy = "Bogus" },
		"dnsPolicy None without dnsConfig":     func(t *corev1.PodTemplateSpec) { t.Spec.DNSPolicy = corev1.DNSNone },
		"dnsPolicy None without nameservers": func(t *corev1.PodTemplateSpec) {
			t.Spec.DNSPolicy, t.Spec.DNSConfig = corev1.DNSNone, &corev1.PodDNSConfig{}
		},
		"imagePullPolicy Sometimes":      func(t *corev1.PodTemplateSpec) { c0(t).ImagePullPolicy = "Sometimes" },
		"terminationMessagePolicy Bogus": func(t *corev1.PodTemplateSpec) { c0(t).TerminationMessagePolicy = "Bogus" },
		"ports: bad name, number and protocol": func(t *corev1.PodTemplateSpec) {
			c0(t).Ports = []corev1.ContainerPort{{Name: "Http_Port", ContainerPort: 70000, HostPort: -1, Protocol: "HTTP"}, {ContainerPort: 0}}
		},
		"host network ports": func(t *corev1.PodTemplateSpec) {
			t.Spec.HostNetwork = true
			c0(t).Ports = []corev1.ContainerPort{{ContainerPort: 22}, {ContainerPort: 80, HostPort: 80}, {ContainerPort: 81, HostPort: 8081}}
		},
		"ports: duplicate names": func(t *corev1.PodTemplateSpec) {
			c0(t).Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 80}, {Name: "http", ContainerPort: 81}}
		},
		"host port conflict": func(t *corev1.PodTemplateSpec) {
			c0(t).Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 8080}}
			t.Spec.Containers = append(t.Spec.Containers, corev1.Container{Name: "side", Image: "x",
				Ports: []corev1.ContainerPort{{ContainerPort: 81, HostPort: 8080, Protocol: corev1.ProtocolTCP}}})
		},
		"env names": func(t *corev1.PodTemplateSpec) {
			c0(t).Env = []corev1.EnvVar{{Name: ""}, {Name: "1A B"}, {Name: "my.env-name"}, {Name: ".."}}
		},
		"volume names": func(t *corev1.PodTemplateSpec) {
			t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: "data"}, corev1.Volume{Name: "Data"}, corev1.Volume{})
		},
		"volume without a source": func(t *corev1.PodTemplateSpec) { t.Spec.Volumes[0].VolumeSource = corev1.VolumeSource{} },
		"volume with two sources": func(t *corev1.PodTemplateSpec) {
			t.Spec.Volumes[0].ConfigMap = &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}}
		},
		"volume sources missing their names": func(t *corev1.PodTemplateSpec) {
			t.Spec.Volumes = append(t.Spec.Volumes,
				corev1.Volume{Name: "a", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{}}},
				corev1.Volume{Name: "b", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x/../y"}}},
				corev1.Volume{Name: "c", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{}}},
				corev1.Volume{Name: "d", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
				corev1.Volume{Name: "e", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{}}},
				corev1.Volume{Name: "f", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: new(q("-1"))}}})
		},
		"mounts": func(t *corev1.PodTemplateSpec) {
			c0(t).VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}, {Name: "nope", MountPath: "/data"},
				{Name: "", MountPath: ""}, {Name: "data", MountPath: "/s", SubPath: "/abs"}, {Name: "data", MountPath: "/t", SubPath: "a/../b", SubPathExpr: "x"}}
		},
		"extended resource without a limit": func(t *corev1.PodTemplateSpec) { c0(t).Resources.Requests = list("nvidia.com/gpu", "1") },
		"extended resource limit only":      func(t *corev1.PodTemplateSpec) { c0(t).Resources.Limits = list("nvidia.com/gpu", "1") },
		"extended resource unequal limit": func(t *corev1.PodTemplateSpec) {
			c0(t).Resources = corev1.ResourceRequirements{Requests: list("nvidia.com/gpu", "1"), Limits: list("nvidia.com/gpu", "2")}
		},
		"extended resource fraction": func(t *corev1.PodTemplateSpec) { c0(t).Resources.Limits = list("nvidia.com/gpu", "500m") },
		"resource names": func(t *corev1.PodTemplateSpec) {
			c0(t).Resources.Limits = list("gpu", "1", "kubernetes.io/foo", "1", "requests.example.com/x", "1", "pods", "1")
		},
		"negative quantities and request above limit": func(t *corev1.PodTemplateSpec) {
			c0(t).Resources = corev1.ResourceRequirements{Requests: list("cpu", "2", "memory", "-1"), Limits: list("cpu", "1")}
		},
		"hugepages": func(t *corev1.PodTemplateSpec) {
			c0(t).Resources = corev1.ResourceRequirements{Requests: list("hugepages-2Mi", "3Mi"), Limits: list("hugepages-2Mi", "3Mi")}
		},
		"pod-level resources": func(t *corev1.PodTemplateSpec) {
			c0(t).Resources = corev1.ResourceRequirements{Requests: list("cpu", "2"), Limits: list("memory", "2Gi", "hugepages-2Mi", "4Mi")}
			t.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "x", Resources: corev1.ResourceRequirements{Requests: list("cpu", "3")}}}
			t.Spec.Resources = &corev1.ResourceRequirements{Requests: list("cpu", "2", "ephemeral-storage", "1Gi"),
				Limits: list("memory", "1Gi", "hugepages-2Mi", "2Mi", "nvidia.com/gpu", "1")}
		},
		"pod-level with a sidecar": func(t *corev1.PodTemplateSpec) {
			c0(t).Resources.Requests = list("cpu", "1")
			t.Spec.InitContainers = []corev1.Container{{Name: "side", Image: "x", RestartPolicy: &restartAlways, Resources: corev1.ResourceRequirements{Requests: list("cpu", "1")}}}
			t.Spec.Resources = &corev1.ResourceRequirements{Requests: list("cpu", "1500m")}
		},
		"labels, annotations, nodeSelector": func(t *corev1.PodTemplateSpec) {
			t.Labels = map[string]string{"Bad Key": "v", "k": "bad value!"}
			t.Annotations = map[string]string{"Bad Key": "v"}
			t.Spec.NodeSelector = map[string]string{"zone": "a b"}
		},
		"names of the pod": func(t *corev1.PodTemplateSpec) {
			t.Spec.Hostname, t.Spec.Subdomain = "Host_1", "sub.domain"
			t.Spec.ServiceAccountName, t.Spec.PriorityClassName = "SA!", "High!"
			t.Spec.ActiveDeadlineSeconds = new(int64(0))
		},
		"ephemeral containers": func(t *corev1.PodTemplateSpec) {
			t.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "x"}}}
		},
		"probes": func(t *corev1.PodTemplateSpec) {
			c0(t).LivenessProbe = &corev1.Probe{SuccessThreshold: 2, PeriodSeconds: -1}
			c0(t).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{},
				TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("Bad_Name")}}, TerminationGracePeriodSeconds: new(int64(5))}
			c0(t).StartupProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Port: intstr.FromInt32(0), Scheme: "FTP", HTTPHeaders: []corev1.HTTPHeader{{Name: "Bad Header"}}}},
				TerminationGracePeriodSeconds: new(int64(0))}
		},
		"valid probes": func(t *corev1.PodTemplateSpec) {
			c0(t).LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromString("http")}}}
			c0(t).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9000}}}
			c0(t).StartupProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}, FailureThreshold: 30}
		},
		"init container restart policies": func(t *corev1.PodTemplateSpec) {
			never := corev1.ContainerRestartPolicy("Never")
			t.Spec.InitContainers = []corev1.Container{
				{Name: "once", Image: "x", RestartPolicy: &never, StartupProbe: &corev1.Probe{}},
				{Name: "side", Image: "x", RestartPolicy: &restartAlways, LivenessProbe: &corev1.Probe{}},
			}
		},
		"env valueFrom": func(t *corev1.PodTemplateSpec) {
			c0(t).Env = []corev1.EnvVar{
				{Name: "A", ValueFrom: &corev1.EnvVarSource{}},
				{Name: "B", Value: "v", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{Key: "k", LocalObjectReference: corev1.LocalObjectReference{Name: "s"}}}},
				{Name: "C", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{Key: "k"},
					ConfigMapKeyRef: &corev1.ConfigMapKeySelector{Key: "bad key!", LocalObjectReference: corev1.LocalObjectReference{Name: "Bad"}}}},
				{Name: "D", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
			}
		},
		"tolerations": func(t *corev1.PodTemplateSpec) {
			t.Spec.Tolerations = []corev1.Toleration{
				{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
				{Operator: corev1.TolerationOpEqual, Value: "x"},
				{Key: "bad key", Operator: corev1.TolerationOpExists, Value: "v", Effect: "NoSchedul"},
				{Key: "k", Value: "bad value!", TolerationSeconds: new(int64(10))},
				{Key: "k", Operator: "Gt", Value: "1"}, {Key: "k", Operator: "In"},
			}
		},
		// Volcano's webhook tests, pod level resources.
		"volcano: valid pod level resources": func(t *corev1.PodTemplateSpec) {
			t.Spec.Resources = &corev1.ResourceRequirements{Requests: list("cpu", "4", "memory", "8Gi", "hugepages-1Mi", "2Gi"), Limits: list("cpu", "4", "memory", "8Gi", "hugepages-1Mi", "2Gi")}
			c0(t).Resources = corev1.ResourceRequirements{Requests: list("cpu", "2", "memory", "4Gi", "hugepages-1Mi", "1Gi"), Limits: list("cpu", "2", "memory", "4Gi", "hugepages-1Mi", "1Gi")}
		},
		"volcano: pod level below aggregate": func(t *corev1.PodTemplateSpec) {
			r := list("cpu", "2", "hugepages-1Mi", "2Gi", "hugepages-1Ki", "2Gi")
			t.Spec.Resources = &corev1.ResourceRequirements{Requests: r, Limits: r.DeepCopy()}
			t.Spec.InitContainers = []corev1.Container{{Name: "fake-name-0", Image: "x", Resources: corev1.ResourceRequirements{Requests: list("cpu", "2")}}}
			t.Spec.Containers = []corev1.Container{{Name: "fake-name-1", Image: "x", Resources: corev1.ResourceRequirements{Requests: list("cpu", "2")}},
				{Name: "fake-name-2", Image: "x", Resources: corev1.ResourceRequirements{Requests: list("cpu", "2")}}}
		},
		"volcano: pod level requests above limits": func(t *corev1.PodTemplateSpec) {
			t.Spec.Resources = &corev1.ResourceRequirements{Requests: list("cpu", "6"), Limits: list("cpu", "4")}
		},
	}
}

func TestFixedTemplatesAgree(t *testing.T) {
	cases := fixedCases()
	rejected := 0
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			tpl := base()
			mutate(tpl)
			ours, theirs, same := compare(tpl)
			if !same {
				t.Fatalf("vcjob and Kubernetes differ:\n vcjob:      %v\n kubernetes: %v", ours, theirs)
			}
			if len(theirs) > 0 {
				rejected++
			}
		})
	}
	t.Logf("%d fixed templates, %d of them rejected by both", len(cases), rejected)
	require.Greater(t, rejected, len(cases)/2, "the fixed cases should mostly exercise rejections")
}

const manifestsDir = "../../../shared/manifests/volcano-examples"

// TestRealTemplatesAgree: every task template of the real manifests.
func TestRealTemplatesAgree(t *testing.T) {
	entries, err := os.ReadDir(testfiles.Shared(t, manifestsDir, "Volcano's own example manifests"))
	require.NoError(t, err)
	n := 0
	for _, entry := range entries {
		data, err := os.ReadFile(filepath.Join(manifestsDir, entry.Name()))
		require.NoError(t, err)
		jobs, err := manifest.DecodeJobsWith(data, manifest.Options{AllowUnknownFields: true})
		require.NoError(t, err, entry.Name())
		for _, job := range jobs {
			for i := range job.Spec.Tasks {
				n++
				if ours, theirs, same := compare(&job.Spec.Tasks[i].Template); !same {
					t.Errorf("%s task %d: vcjob %v, kubernetes %v", entry.Name(), i, ours, theirs)
				}
			}
		}
	}
	t.Logf("%d real task templates", n)
	require.NotZero(t, n)
}

// genTemplate draws a template from the classes vcjob covers. Every value
// comes from a small pool whose first member is valid; a template's rate
// (0 to 30 in 100) is how often a draw leaves the valid one, so some
// templates are valid throughout and others break several rules at once.
func genTemplate(t *rapid.T) *corev1.PodTemplateSpec {
	rate := rapid.IntRange(0, 30).Draw(t, "rate")
	deviate := func(label string) bool { return rapid.IntRange(0, 99).Draw(t, label+"?") < rate }
	pick := func(label string, xs ...string) string {
		if !deviate(label) {
			return xs[0]
		}
		return rapid.SampledFrom(xs).Draw(t, label)
	}
	count := func(label string, valid, most int) int {
		if !deviate(label) {
			return valid
		}
		return rapid.IntRange(0, most).Draw(t, label)
	}
	quantity := func(label string) resource.Quantity {
		return q(rapid.SampledFrom([]string{"0", "1", "2", "500m", "1.5", "-1", "2Mi", "3Mi", "4Mi", "1Gi"}).Draw(t, label))
	}
	resources := func(label string, names []string) corev1.ResourceList {
		if !deviate(label) {
			return nil
		}
		l := corev1.ResourceList{}
		for _, name := range rapid.SliceOfNDistinct(rapid.SampledFrom(names), 0, 3, rapid.ID[string]).Draw(t, label) {
			l[corev1.ResourceName(name)] = quantity(label + "." + name)
		}
		return l
	}
	containerNames := []string{"cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "nvidia.com/gpu", "gpu", "example.com/a_b", "kubernetes.io/x"}
	container := func(label, name string) corev1.Container {
		c := corev1.Container{
			Name:                     pick(label+".name", name, "main", "", "Main", "a_b"),
			Image:                    pick(label+".image", "busybox", ""),
			ImagePullPolicy:          corev1.PullPolicy(pick(label+".pull", "", "Always", "Sometimes")),
			TerminationMessagePolicy: corev1.TerminationMessagePolicy(pick(label+".tmp", "", "File", "Bogus")),
		}
		for i := range count(label+".ports", 1, 2) {
			c.Ports = append(c.Ports, corev1.ContainerPort{
				Name:          pick(label+".port.name", "", "http", "Http_Port", "80", "a-very-long-port-name"),
				ContainerPort: int32(8000 + i),
				HostPort:      0,
				Protocol:      corev1.Protocol(pick(label+".port.protocol", "", "TCP", "UDP", "SCTP", "HTTP")),
				HostIP:        pick(label+".port.ip", "", "127.0.0.1"),
			})
			if deviate(label + ".port.number") {
				c.Ports[i].ContainerPort = int32(rapid.SampledFrom([]int{0, 80, 70000, -1}).Draw(t, label+".port.number"))
			}
			if deviate(label + ".port.host") {
				c.Ports[i].HostPort = int32(rapid.SampledFrom([]int{80, 70000}).Draw(t, label+".port.host"))
			}
		}
		for range count(label+".env", 1, 2) {
			ev := corev1.EnvVar{Name: pick(label+".env.name", "A", "", "1A", "my.env-name", "A B", "..", "a=b"), Value: "v"}
			if deviate(label + ".env.from") {
				ev.Value = pick(label+".env.value", "", "v")
				ev.ValueFrom = &corev1.EnvVarSource{}
				for _, src := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"secret", "configMap", "field"}), 0, 2, rapid.ID[string]).Draw(t, label+".env.sources") {
					name, key := pick(label+".env.ref", "conf", "", "Bad"), pick(label+".env.key", "k", "", "bad key!")
					switch src {
					case "secret":
						ev.ValueFrom.SecretKeyRef = &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key}
					case "configMap":
						ev.ValueFrom.ConfigMapKeyRef = &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key}
					case "field":
						ev.ValueFrom.FieldRef = &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}
					}
				}
			}
			c.Env = append(c.Env, ev)
		}
		probe := func(label string) *corev1.Probe {
			if !deviate(label) {
				return nil
			}
			p := &corev1.Probe{}
			for _, h := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"exec", "http", "tcp", "grpc"}), 0, 2, rapid.ID[string]).Draw(t, label+".handlers") {
				switch h {
				case "exec":
					p.Exec = &corev1.ExecAction{}
					if rapid.Bool().Draw(t, label+".command") {
						p.Exec.Command = []string{"true"}
					}
				case "http":
					p.HTTPGet = &corev1.HTTPGetAction{Port: intstr.Parse(pick(label+".port", "8080", "0", "http", "Bad_Name")),
						Scheme: corev1.URIScheme(pick(label+".scheme", "", "HTTPS", "FTP"))}
					if deviate(label + ".header") {
						p.HTTPGet.HTTPHeaders = []corev1.HTTPHeader{{Name: pick(label+".header.name", "X-Token", "Bad Header"), Value: "v"}}
					}
				case "tcp":
					p.TCPSocket = &corev1.TCPSocketAction{Port: intstr.Parse(pick(label+".port", "8080", "70000", "ssh"))}
				case "grpc":
					p.GRPC = &corev1.GRPCAction{Port: int32(rapid.SampledFrom([]int{9000, 0}).Draw(t, label+".grpc"))}
				}
			}
			p.SuccessThreshold = int32(rapid.SampledFrom([]int{0, 1, 2, -1}).Draw(t, label+".success"))
			p.PeriodSeconds = int32(rapid.SampledFrom([]int{0, 5, -1}).Draw(t, label+".period"))
			if deviate(label + ".grace") {
				p.TerminationGracePeriodSeconds = new(int64(rapid.SampledFrom([]int{0, 5}).Draw(t, label+".grace")))
			}
			return p
		}
		c.LivenessProbe, c.ReadinessProbe, c.StartupProbe = probe(label+".liveness"), probe(label+".readiness"), probe(label+".startup")
		for i := range count(label+".mounts", 1, 2) {
			c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{
				Name:        pick(label+".mount.name", "data", "cache", "", "nope", "Data"),
				MountPath:   pick(label+".mount.path", "/m"+strconv.Itoa(i), "/data", ""),
				SubPath:     pick(label+".mount.subPath", "", "sub", "/abs", "a/../b"),
				SubPathExpr: pick(label+".mount.subPathExpr", "", "x", "../x"),
			})
		}
		c.Resources = corev1.ResourceRequirements{Requests: resources(label+".requests", containerNames), Limits: resources(label+".limits", containerNames)}
		return c
	}
	tpl := &corev1.PodTemplateSpec{}
	if deviate("labels") {
		tpl.Labels = map[string]string{pick("label.key", "app", "Bad Key", "example.com/app"): pick("label.value", "x", "bad value!", "")}
	}
	spec := &tpl.Spec
	for i := range count("containers", 1, 3) {
		spec.Containers = append(spec.Containers, container("container", "c"+strconv.Itoa(i)))
	}
	for i := range count("initContainers", 0, 2) {
		c := container("init", "i"+strconv.Itoa(i))
		if deviate("init.restartPolicy") {
			policy := corev1.ContainerRestartPolicy(pick("init.restartPolicy.value", "Always", "Never", "OnFailure"))
			c.RestartPolicy = &policy
		}
		spec.InitContainers = append(spec.InitContainers, c)
	}
	for i := range rapid.IntRange(1, 3).Draw(t, "volumes") {
		name := "data"
		if i > 0 {
			name = "v" + strconv.Itoa(i)
		}
		v := corev1.Volume{Name: pick("volume.name", name, "cache", "", "Data")}
		sources := []string{"emptyDir"}
		if deviate("volume.sources") {
			sources = rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"emptyDir", "hostPath", "secret", "configMap", "pvc"}), 0, 2, rapid.ID[string]).Draw(t, "volume.sources")
		}
		for _, source := range sources {
			ref := pick("volume.source.name", "x", "")
			switch source {
			case "emptyDir":
				v.EmptyDir = &corev1.EmptyDirVolumeSource{}
				if deviate("emptyDir.size") {
					v.EmptyDir.SizeLimit = new(q("-1Mi"))
				}
			case "hostPath":
				v.HostPath = &corev1.HostPathVolumeSource{Path: pick("hostPath.path", "/x", "", "/x/../y")}
			case "secret":
				v.Secret = &corev1.SecretVolumeSource{SecretName: ref}
			case "configMap":
				v.ConfigMap = &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: ref}}
			case "pvc":
				v.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: ref}
			}
		}
		spec.Volumes = append(spec.Volumes, v)
	}
	spec.RestartPolicy = corev1.RestartPolicy(pick("restartPolicy", "", "Always", "OnFailure", "Never", "Sometimes"))
	spec.DNSPolicy = corev1.DNSPolicy(pick("dnsPolicy", "", "ClusterFirst", "Default", "None", "Bogus"))
	if deviate("dnsConfig") {
		if rapid.Bool().Draw(t, "dnsConfig.nameservers") {
			spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"10.0.0.10"}}
		} else {
			spec.DNSConfig = &corev1.PodDNSConfig{}
		}
	}
	if deviate("podResources") {
		names := []string{"cpu", "memory", "hugepages-2Mi", "nvidia.com/gpu", "ephemeral-storage"}
		spec.Resources = &corev1.ResourceRequirements{Requests: resources("pod.requests", names), Limits: resources("pod.limits", names)}
	}
	spec.HostNetwork = deviate("hostNetwork")
	spec.Hostname = pick("hostname", "", "host", "Host_1")
	spec.ServiceAccountName = pick("serviceAccountName", "", "sa", "SA!")
	spec.PriorityClassName = pick("priorityClassName", "", "high", "High!")
	if deviate("deadline") {
		spec.ActiveDeadlineSeconds = new(int64(rapid.SampledFrom([]int{-1, 0, 10}).Draw(t, "deadline.value")))
	}
	spec.NodeSelector = map[string]string{"zone": pick("nodeSelector", "a", "a b")}
	for range count("tolerations", 1, 2) {
		tol := corev1.Toleration{
			Key:      pick("toleration.key", "nvidia.com/gpu", "", "bad key"),
			Operator: corev1.TolerationOperator(pick("toleration.operator", "Exists", "", "Equal", "Gt", "In")),
			Value:    pick("toleration.value", "", "x", "bad value!"),
			Effect:   corev1.TaintEffect(pick("toleration.effect", "NoSchedule", "", "NoExecute", "PreferNoSchedule", "NoSchedul")),
		}
		if deviate("toleration.seconds") {
			tol.TolerationSeconds = new(int64(30))
		}
		spec.Tolerations = append(spec.Tolerations, tol)
	}
	return tpl
}

func TestGeneratedTemplatesAgree(t *testing.T) {
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		require.NoError(t, f.Value.Set(strconv.Itoa(generated)))
	}
	var total, rejected int
	paths := map[string]int{}
	rapid.Check(t, func(rt *rapid.T) {
		tpl := genTemplate(rt)
		ours, theirs, same := compare(tpl)
		if !same {
			rt.Fatalf("vcjob and Kubernetes differ:\n vcjob:      %v\n kubernetes: %v", ours, theirs)
		}
		total++
		if len(theirs) > 0 {
			rejected++
		}
		for _, k := range theirs {
			paths[pathClass(k)]++
		}
	})
	classes := make([]string, 0, len(paths))
	for c, n := range paths {
		classes = append(classes, c+" "+strconv.Itoa(n))
	}
	sort.Strings(classes)
	t.Logf("%d generated templates, %d rejected by both, %d accepted by both; error classes hit:\n  %s",
		total, rejected, total-rejected, strings.Join(classes, "\n  "))
	require.Greater(t, rejected, 0)
	require.Greater(t, total-rejected, 0, "the generator should also make valid templates")
}

// pathClass turns "FieldValueInvalid spec.tasks[0].template.spec.containers[1].ports[0].name"
// into "FieldValueInvalid containers[].ports[].name".
func pathClass(key string) string {
	typ, path, _ := strings.Cut(key, " ")
	path = strings.TrimPrefix(path, templatePath.String()+".")
	path = strings.TrimPrefix(path, "spec.")
	var b strings.Builder
	skip := false
	for _, r := range path {
		switch {
		case r == '[':
			skip = true
			b.WriteString("[]")
		case r == ']':
			skip = false
		case !skip:
			b.WriteRune(r)
		}
	}
	return typ + " " + b.String()
}

// Kubernetes plugs into vcjob's job validation as Options.PodTemplate: the
// real manifests pass through it as through the built-in validation.
func TestKubernetesAsThePluggedValidator(t *testing.T) {
	entries, err := os.ReadDir(testfiles.Shared(t, manifestsDir, "Volcano's own example manifests"))
	require.NoError(t, err)
	for _, entry := range entries {
		data, err := os.ReadFile(filepath.Join(manifestsDir, entry.Name()))
		require.NoError(t, err)
		jobs, err := manifest.DecodeJobsWith(data, manifest.Options{AllowUnknownFields: true})
		require.NoError(t, err)
		for _, job := range jobs {
			vcjob.SetDefaults(job)
			builtin := errorKeys(validation.ValidateJob(job))
			plugged := errorKeys(validation.ValidateJobWith(job, validation.Options{PodTemplate: Kubernetes}))
			require.Equal(t, builtin, plugged, entry.Name())
		}
	}
	job := &vcjob.Job{Spec: vcjob.JobSpec{Tasks: []vcjob.TaskSpec{{Name: "t", Replicas: 1}}}}
	job.Name = "j"
	errs := validation.ValidateJobWith(job, validation.Options{PodTemplate: Kubernetes})
	require.Equal(t, []string{"FieldValueRequired spec.tasks[0].template.spec.containers"}, errorKeys(errs))
}
