package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/vcjob/vcjob"
)

func svcJob() *vcjob.Job {
	worker := task("worker-gpu", 2, "main")
	worker.Template.Spec.InitContainers = []corev1.Container{{Name: "init"}}
	return newJob("tf", map[string][]string{"svc": nil}, task("ps", 1, "main"), worker)
}

func cmRef(key string) *corev1.EnvVarSource {
	return &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: "tf-svc"}, Key: key,
	}}
}

func wantSvcData() map[string]string {
	return map[string]string{
		"ps.host":             "tf-ps-0.tf",
		"VC_PS_HOSTS":         "tf-ps-0.tf",
		"VC_PS_NUM":           "1",
		"worker_gpu.host":     "tf-worker-gpu-0.tf\ntf-worker-gpu-1.tf",
		"VC_WORKER_GPU_HOSTS": "tf-worker-gpu-0.tf,tf-worker-gpu-1.tf",
		"VC_WORKER_GPU_NUM":   "2",
	}
}

func TestSvcPodCreateDefaults(t *testing.T) {
	job := svcJob()
	p := mustBuild(t, "svc")
	pod := created(t, p, job, "worker-gpu", 1)

	assert.Equal(t, "tf-worker-gpu-1", pod.Spec.Hostname)
	assert.Equal(t, "tf", pod.Spec.Subdomain)
	wantEnv := []corev1.EnvVar{
		{Name: "VC_PS_HOSTS", ValueFrom: cmRef("VC_PS_HOSTS")},
		{Name: "VC_PS_NUM", ValueFrom: cmRef("VC_PS_NUM")},
		{Name: "VC_WORKER_GPU_HOSTS", ValueFrom: cmRef("VC_WORKER_GPU_HOSTS")},
		{Name: "VC_WORKER_GPU_NUM", ValueFrom: cmRef("VC_WORKER_GPU_NUM")},
	}
	wantMounts := []corev1.VolumeMount{{Name: "tf-svc", MountPath: "/etc/volcano"}}
	for _, c := range append(pod.Spec.InitContainers, pod.Spec.Containers...) {
		assert.Equal(t, wantEnv, c.Env, c.Name)
		assert.Equal(t, wantMounts, c.VolumeMounts, c.Name)
	}
	assert.Equal(t, []corev1.Volume{{Name: "tf-svc", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "tf-svc"}},
	}}}, pod.Spec.Volumes)
}

func TestSvcKeepsTemplateHostname(t *testing.T) {
	job := svcJob()
	job.Spec.Tasks[0].Template.Spec.Hostname = "param-server"
	job.Spec.Tasks[0].Template.Spec.Subdomain = "grid"
	job.Spec.Tasks[0].Replicas = 3
	p := mustBuild(t, "svc")
	pod := created(t, p, job, "ps", 2)
	assert.Equal(t, "param-server", pod.Spec.Hostname)
	assert.Equal(t, "grid", pod.Spec.Subdomain)

	data := SvcConfigMapData(job)
	// A template hostname means one host for the whole task.
	assert.Equal(t, "param-server.grid", data["ps.host"])
	assert.Equal(t, "param-server.grid", data["VC_PS_HOSTS"])
	assert.Equal(t, "1", data["VC_PS_NUM"])
}

func TestSvcInjectHostsEnvFalse(t *testing.T) {
	job := svcJob()
	p := mustBuild(t, "svc", "--inject-hosts-env=false")
	pod := created(t, p, job, "ps", 0)
	for _, c := range append(pod.Spec.InitContainers, pod.Spec.Containers...) {
		assert.Empty(t, c.Env, c.Name)
		assert.Equal(t, []corev1.VolumeMount{{Name: "tf-svc", MountPath: "/etc/volcano"}}, c.VolumeMounts)
	}
	// The hosts stay in the ConfigMap.
	objs, err := p.OnJobAdd(job)
	require.NoError(t, err)
	assert.Equal(t, wantSvcData(), objs.Apply[0].(*corev1.ConfigMap).Data)
}

func wantService(job *vcjob.Job, publish bool) *corev1.Service {
	return &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "tf", Labels: jobLabels(job),
			OwnerReferences: ownerRef(job)},
		Spec: corev1.ServiceSpec{
			ClusterIP:                "None",
			Selector:                 map[string]string{"volcano.sh/job-name": "tf", "volcano.sh/job-namespace": "ns"},
			PublishNotReadyAddresses: publish,
		},
	}
}

func wantNetworkPolicy(job *vcjob.Job, annotations map[string]string) *networkingv1.NetworkPolicy {
	sel := map[string]string{"volcano.sh/job-name": "tf", "volcano.sh/job-namespace": "ns"}
	return &networkingv1.NetworkPolicy{
		TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "tf", Labels: jobLabels(job),
			Annotations: annotations, OwnerReferences: ownerRef(job)},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: sel},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: sel}}},
			}},
			PolicyTypes: []networkingv1.PolicyType{"Ingress"},
		},
	}
}

func wantConfigMap(job *vcjob.Job, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "tf-svc", Labels: jobLabels(job),
			OwnerReferences: ownerRef(job)},
		Data: data,
	}
}

func TestSvcJobHooksByArgument(t *testing.T) {
	cmDel := ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "tf-svc"}
	svcDel := ObjectRef{APIVersion: "v1", Kind: "Service", Namespace: "ns", Name: "tf"}
	npDel := ObjectRef{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy", Namespace: "ns", Name: "tf"}
	cases := []struct {
		name       string
		args       []string
		publish    bool
		np         bool
		npAnnots   map[string]string
		wantDelete []ObjectRef
	}{
		{name: "defaults", np: true, wantDelete: []ObjectRef{cmDel, svcDel, npDel}},
		{name: "publish-not-ready-addresses", args: []string{"--publish-not-ready-addresses=true"}, publish: true, np: true, wantDelete: []ObjectRef{cmDel, svcDel, npDel}},
		{name: "disable-network-policy", args: []string{"--disable-network-policy"}, wantDelete: []ObjectRef{cmDel, svcDel}},
		{name: "network-policy-strategy", args: []string{"--network-policy-strategy=allow-related"}, np: true,
			npAnnots: map[string]string{"ovn.kubernetes.io/network_policy_strategy": "allow-related"}, wantDelete: []ObjectRef{cmDel, svcDel, npDel}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := svcJob()
			p := mustBuild(t, "svc", tc.args...)

			objs, err := p.OnJobAdd(job)
			require.NoError(t, err)
			want := []runtime.Object{wantConfigMap(job, wantSvcData()), wantService(job, tc.publish)}
			if tc.np {
				want = append(want, wantNetworkPolicy(job, tc.npAnnots))
			}
			assert.Equal(t, want, objs.Apply)
			assert.Empty(t, objs.Delete)
			assert.Equal(t, "svc", job.Status.ControlledResources["plugin-svc"])

			again, err := p.OnJobAdd(job)
			require.NoError(t, err)
			assert.True(t, again.Empty(), "already recorded: nothing to do")

			objs, err = p.OnJobDelete(job)
			require.NoError(t, err)
			assert.Equal(t, tc.wantDelete, objs.Delete)
			assert.NotContains(t, job.Status.ControlledResources, "plugin-svc")

			again, err = p.OnJobDelete(job)
			require.NoError(t, err)
			assert.True(t, again.Empty(), "not recorded: nothing to delete")
		})
	}
}

func TestSvcOnJobUpdateRewritesHosts(t *testing.T) {
	job := svcJob()
	p := mustBuild(t, "svc")
	job.Spec.Tasks[1].Replicas = 3
	objs, err := p.OnJobUpdate(job)
	require.NoError(t, err)
	data := wantSvcData()
	data["worker_gpu.host"] = "tf-worker-gpu-0.tf\ntf-worker-gpu-1.tf\ntf-worker-gpu-2.tf"
	data["VC_WORKER_GPU_HOSTS"] = "tf-worker-gpu-0.tf,tf-worker-gpu-1.tf,tf-worker-gpu-2.tf"
	data["VC_WORKER_GPU_NUM"] = "3"
	assert.Equal(t, []runtime.Object{wantConfigMap(job, data)}, objs.Apply)
	assert.Empty(t, job.Status.ControlledResources)
}

func TestSvcArgumentErrors(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"bad strategy": {[]string{"--network-policy-strategy=maybe"}, `argument "--network-policy-strategy=maybe"`},
		"bad bool":     {[]string{"--inject-hosts-env=perhaps"}, `argument "--inject-hosts-env=perhaps"`},
		"unknown flag": {[]string{"--publish=true"}, `argument "--publish=true"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := NewSvc(tc.args)
			require.Error(t, err)
			assert.Contains(t, err.Error(), `plugin "svc"`)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	for _, s := range []string{"allow", "allow-related", "allow-stateless", "drop", "reject"} {
		_, err := NewSvc([]string{"--network-policy-strategy=" + s})
		assert.NoError(t, err, s)
	}
}
