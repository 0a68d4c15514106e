package plugins

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/vcjob/vcjob"
)

// Names and keys of the svc plugin.
const (
	// SvcMountPath is where the hosts ConfigMap is mounted in every
	// container.
	SvcMountPath = "/etc/volcano"
	// NetworkPolicyStrategyAnnotation carries --network-policy-strategy on
	// the NetworkPolicy (an OVN-Kubernetes annotation).
	NetworkPolicyStrategyAnnotation = "ovn.kubernetes.io/network_policy_strategy"
)

// networkPolicyStrategies are the values --network-policy-strategy accepts.
var networkPolicyStrategies = []string{"allow", "allow-related", "allow-stateless", "drop", "reject"}

type svcPlugin struct {
	*mode
	publishNotReadyAddresses bool
	disableNetworkPolicy     bool
	injectHostsEnv           bool
	networkPolicyStrategy    string
}

// NewSvc builds the svc plugin. Arguments (Go flag syntax, e.g.
// "--disable-network-policy=true"):
//
//	--publish-not-ready-addresses  bool, default false
//	--disable-network-policy       bool, default false
//	--inject-hosts-env             bool, default true
//	--network-policy-strategy      one of allow, allow-related,
//	                               allow-stateless, drop, reject; default unset
func NewSvc(args []string) (Plugin, error) {
	return newSvc(args, strictMode())
}

func newSvc(args []string, m *mode) (Plugin, error) {
	name := vcjob.PluginSvc
	p := &svcPlugin{mode: m, injectHostsEnv: true}
	fs := newFlagSet(name)
	fs.BoolVar(&p.publishNotReadyAddresses, "publish-not-ready-addresses", false, "publish the addresses of pods that are not ready")
	fs.BoolVar(&p.disableNetworkPolicy, "disable-network-policy", false, "create no NetworkPolicy")
	fs.BoolVar(&p.injectHostsEnv, "inject-hosts-env", true, "set VC_<TASK>_HOSTS and VC_<TASK>_NUM in every container")
	fs.StringVar(&p.networkPolicyStrategy, "network-policy-strategy", "", "OVN network policy strategy of the NetworkPolicy")
	if err := m.parse(name, fs, args); err != nil {
		return nil, err
	}
	if s := p.networkPolicyStrategy; s != "" && !contains(networkPolicyStrategies, s) {
		if err := m.tolerate(&ArgError{Plugin: name, Arg: argFor(fs, args, "network-policy-strategy"),
			Reason: fmt.Sprintf("%q is not one of %s", s, strings.Join(networkPolicyStrategies, ", "))}); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (p *svcPlugin) Name() string { return vcjob.PluginSvc }

// SvcConfigMapName is the name of the svc plugin's hosts ConfigMap:
// "<job>-svc".
func SvcConfigMapName(job *vcjob.Job) string { return job.Name + "-" + vcjob.PluginSvc }

// svcTaskKey is a task name as the svc plugin uses it in keys: "-" becomes
// "_".
func svcTaskKey(task string) string { return strings.ReplaceAll(task, "-", "_") }

// SvcHostsEnvName is VC_<TASK>_HOSTS for a task (upper case, "-" → "_").
func SvcHostsEnvName(task string) string {
	return "VC_" + strings.ToUpper(svcTaskKey(task)) + "_HOSTS"
}

// SvcNumEnvName is VC_<TASK>_NUM for a task (upper case, "-" → "_").
func SvcNumEnvName(task string) string {
	return "VC_" + strings.ToUpper(svcTaskKey(task)) + "_NUM"
}

// SvcHostFileKey is the ConfigMap key (and file under /etc/volcano) of a
// task's host list: "<task>.host" with "-" → "_".
func SvcHostFileKey(task string) string { return svcTaskKey(task) + ".host" }

// SvcConfigMapData is the content of the hosts ConfigMap: per task, its
// host names one per line under "<task>.host", comma-separated under
// VC_<TASK>_HOSTS, and their count under VC_<TASK>_NUM.
func SvcConfigMapData(job *vcjob.Job) map[string]string {
	data := make(map[string]string, 3*len(job.Spec.Tasks))
	for i := range job.Spec.Tasks {
		ts := &job.Spec.Tasks[i]
		hosts := taskHosts(job, ts)
		data[SvcHostFileKey(ts.Name)] = strings.Join(hosts, "\n")
		data[SvcHostsEnvName(ts.Name)] = strings.Join(hosts, ",")
		data[SvcNumEnvName(ts.Name)] = strconv.Itoa(len(hosts))
	}
	return data
}

// OnPodCreate gives the pod hostname = its name and subdomain = the job's
// name (when unset), mounts the hosts ConfigMap at /etc/volcano in every
// container and init container, and, unless --inject-hosts-env=false,
// sets VC_<TASK>_HOSTS and VC_<TASK>_NUM of every task from it.
func (p *svcPlugin) OnPodCreate(pod *corev1.Pod, job *vcjob.Job) error {
	if err := checkPod(p.Name(), pod, job); err != nil {
		return err
	}
	if pod.Spec.Hostname == "" {
		pod.Spec.Hostname = pod.Name
	}
	if pod.Spec.Subdomain == "" {
		pod.Spec.Subdomain = job.Name
	}
	cm := SvcConfigMapName(job)
	var env []corev1.EnvVar
	if p.injectHostsEnv {
		for _, ts := range job.Spec.Tasks {
			for _, name := range []string{SvcHostsEnvName(ts.Name), SvcNumEnvName(ts.Name)} {
				env = append(env, corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
					ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: cm},
						Key:                  name,
					},
				}})
			}
		}
	}
	setVolume(pod, corev1.Volume{Name: cm, VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}},
	}})
	eachContainer(pod, true, func(c *corev1.Container) {
		for _, e := range env {
			p.setEnv(c, e)
		}
		setMount(c, corev1.VolumeMount{Name: cm, MountPath: SvcMountPath})
	})
	return nil
}

func (p *svcPlugin) configMap(job *vcjob.Job) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: p.meta(job, SvcConfigMapName(job)),
		Data:       SvcConfigMapData(job),
	}
}

func (p *svcPlugin) service(job *vcjob.Job) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: p.meta(job, job.Name),
		Spec: corev1.ServiceSpec{
			ClusterIP:                corev1.ClusterIPNone,
			Selector:                 jobSelector(job),
			PublishNotReadyAddresses: p.publishNotReadyAddresses,
		},
	}
}

func (p *svcPlugin) networkPolicy(job *vcjob.Job) *networkingv1.NetworkPolicy {
	np := &networkingv1.NetworkPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
		ObjectMeta: p.meta(job, job.Name),
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: jobSelector(job)},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				From: []networkingv1.NetworkPolicyPeer{{
					PodSelector: &metav1.LabelSelector{MatchLabels: jobSelector(job)},
				}},
			}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		},
	}
	if p.networkPolicyStrategy != "" {
		np.Annotations = map[string]string{NetworkPolicyStrategyAnnotation: p.networkPolicyStrategy}
	}
	return np
}

// OnJobAdd, unless already recorded, returns the hosts ConfigMap, the
// headless Service named after the job selecting its pods, and (unless
// --disable-network-policy) a NetworkPolicy admitting ingress only from
// the job's own pods.
func (p *svcPlugin) OnJobAdd(job *vcjob.Job) (Objects, error) {
	if err := checkJob(p.Name(), job); err != nil {
		return Objects{}, err
	}
	if recorded(job, p.Name()) {
		return Objects{}, nil
	}
	var out Objects
	out.Apply = append(out.Apply, p.configMap(job), p.service(job))
	if !p.disableNetworkPolicy {
		out.Apply = append(out.Apply, p.networkPolicy(job))
	}
	record(job, p.Name())
	return out, nil
}

// OnJobUpdate returns the hosts ConfigMap rebuilt from the current spec
// (Volcano rewrites it on every update, recorded or not).
func (p *svcPlugin) OnJobUpdate(job *vcjob.Job) (Objects, error) {
	if err := checkJob(p.Name(), job); err != nil {
		return Objects{}, err
	}
	return Objects{Apply: []runtime.Object{p.configMap(job)}}, nil
}

// OnJobDelete, when recorded, deletes the ConfigMap, the Service and
// (unless --disable-network-policy) the NetworkPolicy.
func (p *svcPlugin) OnJobDelete(job *vcjob.Job) (Objects, error) {
	if err := checkJob(p.Name(), job); err != nil {
		return Objects{}, err
	}
	if !recorded(job, p.Name()) {
		return Objects{}, nil
	}
	out := Objects{Delete: []ObjectRef{
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: job.Namespace, Name: SvcConfigMapName(job)},
		{APIVersion: "v1", Kind: "Service", Namespace: job.Namespace, Name: job.Name},
	}}
	if !p.disableNetworkPolicy {
		out.Delete = append(out.Delete, ObjectRef{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy", Namespace: job.Namespace, Name: job.Name})
	}
	unrecord(job, p.Name())
	return out, nil
}
