package validation

import (
	"fmt"
	"math"
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	kvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidatePodTemplateSpec checks a task's pod template the way Volcano's
// webhook does: Kubernetes' pod template validation after Kubernetes'
// defaults (an empty restartPolicy is Always, an empty dnsPolicy
// ClusterFirst, a port's empty protocol TCP, ...), with pod-level
// resources enabled. Errors carry Kubernetes' field paths (under fldPath,
// the template's own path) and messages.
//
// It covers what users trip over, from labels to tolerations (each check
// says what it covers). The rest of a pod spec (lifecycle handlers,
// security contexts, affinity, topology spread, resource claims, ...) is
// left to Kubernetes' own validation, plugged in through
// Options.PodTemplate: validation/podvalidation shows how, and tests that
// both say the same on every class checked here.
func ValidatePodTemplateSpec(template *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	if template == nil {
		return nil
	}
	var errs field.ErrorList
	errs = append(errs, metav1validation.ValidateLabels(template.Labels, fldPath.Child("labels"))...)
	errs = append(errs, apivalidation.ValidateAnnotations(template.Annotations, fldPath.Child("annotations"))...)
	errs = append(errs, validatePodSpec(&template.Spec, fldPath.Child("spec"))...)
	return errs
}

// validatePodSpec checks the volumes, the containers and the pod's
// resources, then the pod-wide fields: spec.restartPolicy and
// spec.dnsPolicy values (None needs dnsConfig.nameservers), nodeSelector
// labels, hostname, subdomain, serviceAccountName, priorityClassName,
// activeDeadlineSeconds in 1..2^31-1, tolerations; ephemeral containers
// are forbidden in a template.
func validatePodSpec(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	vols, volErrs := validatePodVolumes(spec.Volumes, fldPath.Child("volumes"))
	errs = append(errs, volErrs...)
	errs = append(errs, validateContainers(spec.Containers, vols, fldPath.Child("containers"))...)
	errs = append(errs, validateInitContainers(spec, vols, fldPath.Child("initContainers"))...)
	if spec.Resources != nil {
		errs = append(errs, validatePodResources(spec, fldPath.Child("resources"))...)
	}
	if spec.HostNetwork {
		errs = append(errs, hostNetworkPorts(spec.Containers, fldPath.Child("containers"))...)
	}
	errs = append(errs, validatePodPolicies(spec, fldPath)...)
	errs = append(errs, metav1validation.ValidateLabels(spec.NodeSelector, fldPath.Child("nodeSelector"))...)

	serviceAccount := spec.ServiceAccountName
	if serviceAccount == "" {
		serviceAccount = spec.DeprecatedServiceAccount //nolint:staticcheck // the defaults copy it over
	}
	errs = append(errs, dns1123Subdomain(serviceAccount, fldPath.Child("serviceAccountName"))...)
	if d := spec.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > math.MaxInt32) {
		errs = append(errs, field.Invalid(fldPath.Child("activeDeadlineSeconds"), *d, kvalidation.InclusiveRangeError(1, math.MaxInt32)))
	}
	errs = append(errs, dns1123Label(spec.Hostname, fldPath.Child("hostname"))...)
	errs = append(errs, dns1123Label(spec.Subdomain, fldPath.Child("subdomain"))...)
	errs = append(errs, dns1123Subdomain(spec.PriorityClassName, fldPath.Child("priorityClassName"))...)
	errs = append(errs, validateTolerations(spec.Tolerations, fldPath.Child("tolerations"))...)
	if len(spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(fldPath.Child("ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return errs
}

// validateContainers checks the regular containers: at least one, names
// unique, no restartPolicy (only init containers have one), their probes,
// and no host port taken twice.
func validateContainers(containers []corev1.Container, vols map[string]bool, fldPath *field.Path) field.ErrorList {
	if len(containers) == 0 {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var errs field.ErrorList
	names := map[string]bool{}
	for i := range containers {
		ctr := &containers[i]
		p := fldPath.Index(i)
		errs = append(errs, validateContainerCommon(ctr, vols, p)...)
		if names[ctr.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), ctr.Name))
		} else {
			names[ctr.Name] = true
		}
		errs = append(errs, validateProbes(ctr, p)...)
		if ctr.RestartPolicy != nil {
			errs = append(errs, field.Forbidden(p.Child("restartPolicy"), "may not be set for non-init containers"))
		}
	}
	return append(errs, hostPortConflicts(containers, fldPath)...)
}

// validateInitContainers checks the init containers: names unique across
// them and the regular containers, restartPolicy Always the only value (a
// sidecar, whose probes are checked as a regular container's), and
// lifecycle and probes forbidden on those that are not sidecars.
func validateInitContainers(spec *corev1.PodSpec, vols map[string]bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	allNames := map[string]bool{}
	for _, ctr := range spec.Containers {
		allNames[ctr.Name] = true
	}
	for i := range spec.InitContainers {
		ctr := &spec.InitContainers[i]
		p := fldPath.Index(i)
		errs = append(errs, validateContainerCommon(ctr, vols, p)...)
		if allNames[ctr.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), ctr.Name))
		} else if ctr.Name != "" {
			allNames[ctr.Name] = true
		}
		errs = append(errs, hostPortConflicts([]corev1.Container{*ctr}, fldPath)...)
		switch {
		case ctr.RestartPolicy != nil && *ctr.RestartPolicy != corev1.ContainerRestartPolicyAlways:
			errs = append(errs, field.NotSupported(p.Child("restartPolicy"), *ctr.RestartPolicy,
				[]corev1.ContainerRestartPolicy{corev1.ContainerRestartPolicyAlways}))
		case ctr.RestartPolicy != nil: // a sidecar: probes as a regular container's
			errs = append(errs, validateProbes(ctr, p)...)
		}
		if ctr.RestartPolicy == nil || *ctr.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			errs = append(errs, notSidecarForbidden(ctr, p)...)
		}
	}
	return errs
}

// notSidecarForbidden: an init container that is not a sidecar runs to
// completion before the others start, so it has no lifecycle and no
// probes.
func notSidecarForbidden(ctr *corev1.Container, fldPath *field.Path) field.ErrorList {
	const detail = "may not be set for init containers without restartPolicy=Always"
	var errs field.ErrorList
	if ctr.Lifecycle != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("lifecycle"), detail))
	}
	if ctr.LivenessProbe != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("livenessProbe"), detail))
	}
	if ctr.ReadinessProbe != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("readinessProbe"), detail))
	}
	if ctr.StartupProbe != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("startupProbe"), detail))
	}
	return errs
}

// hostNetworkPorts: with hostNetwork a container's port is the host's, so
// a hostPort must be the containerPort. A template may leave hostPort 0
// (the pod's defaults copy the containerPort).
func hostNetworkPorts(containers []corev1.Container, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, ctr := range containers {
		for j, port := range ctr.Ports {
			if port.HostPort != 0 && port.HostPort != port.ContainerPort {
				errs = append(errs, field.Invalid(fldPath.Index(i).Child("ports").Index(j).Child("hostPort"), port.HostPort,
					"must match `containerPort` when `hostNetwork` is true"))
			}
		}
	}
	return errs
}

// validatePodPolicies checks the values of spec.restartPolicy and
// spec.dnsPolicy; a dnsPolicy of None needs dnsConfig.nameservers.
func validatePodPolicies(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch spec.RestartPolicy {
	case "", corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever: // "" defaults to Always
	default:
		errs = append(errs, field.NotSupported(fldPath.Child("restartPolicy"), spec.RestartPolicy,
			[]corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
	}
	switch spec.DNSPolicy {
	case "", corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault: // "" defaults to ClusterFirst
	case corev1.DNSNone:
		dnsPath := fldPath.Child("dnsConfig")
		switch {
		case spec.DNSConfig == nil:
			errs = append(errs, field.Required(dnsPath, "must provide `dnsConfig` when `dnsPolicy` is None"))
		case len(spec.DNSConfig.Nameservers) == 0:
			errs = append(errs, field.Required(dnsPath.Child("nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None"))
		}
	default:
		errs = append(errs, field.NotSupported(fldPath.Child("dnsPolicy"), spec.DNSPolicy,
			[]corev1.DNSPolicy{corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone}))
	}
	return errs
}

// dns1123Subdomain checks an optional DNS subdomain, one error per
// problem.
func dns1123Subdomain(value string, fldPath *field.Path) field.ErrorList {
	return optionalName(value, kvalidation.IsDNS1123Subdomain, fldPath)
}

// dns1123Label checks an optional DNS label, one error per problem.
func dns1123Label(value string, fldPath *field.Path) field.ErrorList {
	return optionalName(value, kvalidation.IsDNS1123Label, fldPath)
}

// optionalName checks value with check unless it is empty, one error per
// problem check finds.
func optionalName(value string, check func(string) []string, fldPath *field.Path) field.ErrorList {
	if value == "" {
		return nil
	}
	var errs field.ErrorList
	for _, msg := range check(value) {
		errs = append(errs, field.Invalid(fldPath, value, msg))
	}
	return errs
}

// validatePodVolumes checks each volume's name (required, a DNS label,
// unique) and source. It returns the names of the valid volumes (a mount
// of any other name is NotFound, as in Kubernetes) and the volumes' errors.
func validatePodVolumes(volumes []corev1.Volume, fldPath *field.Path) (map[string]bool, field.ErrorList) {
	var errs field.ErrorList
	valid := map[string]bool{}
	for i := range volumes {
		vol := &volumes[i]
		p := fldPath.Index(i)
		el := validateVolumeSource(&vol.VolumeSource, p)
		if vol.Name == "" {
			el = append(el, field.Required(p.Child("name"), ""))
		} else {
			el = append(el, dns1123Label(vol.Name, p.Child("name"))...)
		}
		if valid[vol.Name] {
			el = append(el, field.Duplicate(p.Child("name"), vol.Name))
		}
		if len(el) == 0 {
			valid[vol.Name] = true
		}
		errs = append(errs, el...)
	}
	return valid, errs
}

// volumeSourceField is one of the volume sources, in the order Kubernetes
// checks them: the first set one counts, each later one is forbidden.
type volumeSourceField struct {
	name  string
	set   bool
	check func(p *field.Path) field.ErrorList
}

// validateVolumeSource: one source at most, and the required field of the
// emptyDir, hostPath, secret, persistentVolumeClaim and configMap sources
// (a volume with no source is an emptyDir by Kubernetes' defaults). Other
// sources and their items are left to a plugged-in validator.
func validateVolumeSource(src *corev1.VolumeSource, fldPath *field.Path) field.ErrorList {
	sources := []volumeSourceField{
		{"emptyDir", src.EmptyDir != nil, func(p *field.Path) field.ErrorList {
			if sl := src.EmptyDir.SizeLimit; sl != nil && sl.Sign() < 0 {
				return field.ErrorList{field.Forbidden(p.Child("sizeLimit"), "SizeLimit field must be a valid resource quantity")}
			}
			return nil
		}},
		{"hostPath", src.HostPath != nil, func(p *field.Path) field.ErrorList {
			if src.HostPath.Path == "" {
				return field.ErrorList{field.Required(p.Child("path"), "")}
			}
			return noBacksteps(src.HostPath.Path, p.Child("path"))
		}},
		{"gitRepo", src.GitRepo != nil, nil},
		{"gcePersistentDisk", src.GCEPersistentDisk != nil, nil},
		{"awsElasticBlockStore", src.AWSElasticBlockStore != nil, nil},
		{"secret", src.Secret != nil, func(p *field.Path) field.ErrorList {
			if src.Secret.SecretName == "" {
				return field.ErrorList{field.Required(p.Child("secretName"), "")}
			}
			return nil
		}},
		{"nfs", src.NFS != nil, nil},
		{"iscsi", src.ISCSI != nil, nil},
		{"glusterfs", src.Glusterfs != nil, nil},
		{"flocker", src.Flocker != nil, nil},
		{"persistentVolumeClaim", src.PersistentVolumeClaim != nil, func(p *field.Path) field.ErrorList {
			if src.PersistentVolumeClaim.ClaimName == "" {
				return field.ErrorList{field.Required(p.Child("claimName"), "")}
			}
			return nil
		}},
		{"rbd", src.RBD != nil, nil},
		{"cinder", src.Cinder != nil, nil},
		{"cephFS", src.CephFS != nil, nil},
		{"quobyte", src.Quobyte != nil, nil},
		{"downwardAPI", src.DownwardAPI != nil, nil},
		{"fc", src.FC != nil, nil},
		{"flexVolume", src.FlexVolume != nil, nil},
		{"configMap", src.ConfigMap != nil, func(p *field.Path) field.ErrorList {
			if src.ConfigMap.Name == "" {
				return field.ErrorList{field.Required(p.Child("name"), "")}
			}
			return nil
		}},
		{"azureFile", src.AzureFile != nil, nil},
		{"vsphereVolume", src.VsphereVolume != nil, nil},
		{"photonPersistentDisk", src.PhotonPersistentDisk != nil, nil},
		{"portworxVolume", src.PortworxVolume != nil, nil},
		{"azureDisk", src.AzureDisk != nil, nil},
		{"storageos", src.StorageOS != nil, nil},
		{"projected", src.Projected != nil, nil},
		{"scaleIO", src.ScaleIO != nil, nil},
		{"csi", src.CSI != nil, nil},
		{"ephemeral", src.Ephemeral != nil, nil},
		{"image", src.Image != nil, nil},
	}
	var errs field.ErrorList
	found := false
	for _, s := range sources {
		if !s.set {
			continue
		}
		p := fldPath.Child(s.name)
		if found {
			errs = append(errs, field.Forbidden(p, "may not specify more than 1 volume type"))
			continue
		}
		found = true
		if s.check != nil { // the others' contents are left to a plugged-in validator
			errs = append(errs, s.check(p)...)
		}
	}
	// No source at all defaults to an emptyDir.
	return errs
}

// noBacksteps: no ".." element.
func noBacksteps(target string, fldPath *field.Path) field.ErrorList {
	for _, item := range strings.Split(target, "/") {
		if item == ".." {
			return field.ErrorList{field.Invalid(fldPath, target, "must not contain '..'")}
		}
	}
	return nil
}

// localDescendingPath: relative, no "..".
func localDescendingPath(target string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if path.IsAbs(target) {
		errs = append(errs, field.Invalid(fldPath, target, "must be a relative path"))
	}
	return append(errs, noBacksteps(target, fldPath)...)
}

// validateContainerCommon checks what regular and init containers share:
// the name (required, a DNS label), the image (required), the
// terminationMessagePolicy and imagePullPolicy values, ports, env names
// and sources, volume mounts and resources. envFrom is left to a
// plugged-in validator.
func validateContainerCommon(ctr *corev1.Container, vols map[string]bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ctr.Name == "" {
		errs = append(errs, field.Required(fldPath.Child("name"), ""))
	} else {
		errs = append(errs, dns1123Label(ctr.Name, fldPath.Child("name"))...)
	}
	if ctr.Image == "" {
		errs = append(errs, field.Required(fldPath.Child("image"), ""))
	}
	switch ctr.TerminationMessagePolicy {
	case "", corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError: // "" defaults to File
	default:
		errs = append(errs, field.NotSupported(fldPath.Child("terminationMessagePolicy"), ctr.TerminationMessagePolicy,
			[]corev1.TerminationMessagePolicy{corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError}))
	}
	errs = append(errs, validateContainerPorts(ctr.Ports, fldPath.Child("ports"))...)
	for i, ev := range ctr.Env {
		p := fldPath.Child("env").Index(i)
		if ev.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
			continue
		}
		for _, msg := range kvalidation.IsEnvVarName(ev.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), ev.Name, msg))
		}
	}
	for i, ev := range ctr.Env {
		errs = append(errs, validateEnvValueFrom(&ev, fldPath.Child("env").Index(i).Child("valueFrom"))...)
	}
	errs = append(errs, validateVolumeMounts(ctr.VolumeMounts, vols, fldPath.Child("volumeMounts"))...)
	switch ctr.ImagePullPolicy {
	case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever: // "" is defaulted from the image tag
	default:
		errs = append(errs, field.NotSupported(fldPath.Child("imagePullPolicy"), ctr.ImagePullPolicy,
			[]corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever}))
	}
	errs = append(errs, validateResourceRequirements(&ctr.Resources, containerResourceName, fldPath.Child("resources"))...)
	return errs
}

// validateContainerPorts: names IANA service names unique in the
// container, container and host port numbers in range, known protocols.
func validateContainerPorts(ports []corev1.ContainerPort, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		p := fldPath.Index(i)
		if port.Name != "" {
			if msgs := kvalidation.IsValidPortName(port.Name); len(msgs) > 0 {
				for _, msg := range msgs {
					errs = append(errs, field.Invalid(p.Child("name"), port.Name, msg))
				}
			} else if names[port.Name] {
				errs = append(errs, field.Duplicate(p.Child("name"), port.Name))
			} else {
				names[port.Name] = true
			}
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(p.Child("containerPort"), ""))
		} else {
			for _, msg := range kvalidation.IsValidPortNum(int(port.ContainerPort)) {
				errs = append(errs, field.Invalid(p.Child("containerPort"), port.ContainerPort, msg))
			}
		}
		if port.HostPort != 0 {
			for _, msg := range kvalidation.IsValidPortNum(int(port.HostPort)) {
				errs = append(errs, field.Invalid(p.Child("hostPort"), port.HostPort, msg))
			}
		}
		switch port.Protocol {
		case "", corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP: // "" defaults to TCP
		default:
			errs = append(errs, field.NotSupported(p.Child("protocol"), port.Protocol,
				[]corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}))
		}
	}
	return errs
}

// hostPortConflicts: a protocol, host IP and host port taken twice.
func hostPortConflicts(containers []corev1.Container, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	taken := map[string]bool{}
	for ci, ctr := range containers {
		for pi, port := range ctr.Ports {
			if port.HostPort == 0 {
				continue
			}
			protocol := port.Protocol
			if protocol == "" {
				protocol = corev1.ProtocolTCP
			}
			key := fmt.Sprintf("%s/%s/%d", protocol, port.HostIP, port.HostPort)
			if taken[key] {
				errs = append(errs, field.Duplicate(fldPath.Index(ci).Child("ports").Index(pi).Child("hostPort"), key))
			}
			taken[key] = true
		}
	}
	return errs
}

// validateVolumeMounts: a name of a valid volume, a mount path required
// and unique, subPath and subPathExpr relative without "..".
func validateVolumeMounts(mounts []corev1.VolumeMount, vols map[string]bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	mountPoints := map[string]bool{}
	for i, mnt := range mounts {
		p := fldPath.Index(i)
		if mnt.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		if !vols[mnt.Name] {
			errs = append(errs, field.NotFound(p.Child("name"), mnt.Name))
		}
		if mnt.MountPath == "" {
			errs = append(errs, field.Required(p.Child("mountPath"), ""))
		}
		if mountPoints[mnt.MountPath] {
			errs = append(errs, field.Invalid(p.Child("mountPath"), mnt.MountPath, "must be unique"))
		}
		mountPoints[mnt.MountPath] = true
		// Kubernetes reports these at volumeMounts.subPath, without the
		// index; the paths say the same here.
		if mnt.SubPath != "" {
			errs = append(errs, localDescendingPath(mnt.SubPath, fldPath.Child("subPath"))...)
		}
		if mnt.SubPathExpr != "" {
			if mnt.SubPath != "" {
				errs = append(errs, field.Invalid(p.Child("subPathExpr"), mnt.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			}
			errs = append(errs, localDescendingPath(mnt.SubPathExpr, fldPath.Child("subPathExpr"))...)
		}
	}
	return errs
}

const hugePagesPrefix = string(corev1.ResourceHugePagesPrefix)

func isHugePages(name corev1.ResourceName) bool {
	return strings.HasPrefix(string(name), hugePagesPrefix)
}

// isNative: unprefixed, or in the kubernetes.io namespace.
func isNative(name corev1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || strings.Contains(string(name), corev1.ResourceDefaultNamespacePrefix)
}

func isExtended(name corev1.ResourceName) bool {
	if isNative(name) || strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(kvalidation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+string(name))) == 0
}

func overcommitAllowed(name corev1.ResourceName) bool { return isNative(name) && !isHugePages(name) }

// standardResourceNames are the unprefixed names Kubernetes knows as
// resources (quota names included: a container may not use them, but they
// are not unknown).
var standardResourceNames = map[corev1.ResourceName]bool{
	corev1.ResourceCPU: true, corev1.ResourceMemory: true, corev1.ResourceEphemeralStorage: true,
	corev1.ResourceRequestsCPU: true, corev1.ResourceRequestsMemory: true, corev1.ResourceRequestsEphemeralStorage: true,
	corev1.ResourceLimitsCPU: true, corev1.ResourceLimitsMemory: true, corev1.ResourceLimitsEphemeralStorage: true,
	corev1.ResourcePods: true, corev1.ResourceQuotas: true, corev1.ResourceServices: true,
	corev1.ResourceReplicationControllers: true, corev1.ResourceSecrets: true, corev1.ResourcePersistentVolumeClaims: true,
	corev1.ResourceConfigMaps: true, corev1.ResourceServicesNodePorts: true, corev1.ResourceServicesLoadBalancers: true,
	corev1.ResourceRequestsStorage: true,
}

// resourceName checks what every resource name must be.
func resourceName(name corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range kvalidation.IsQualifiedName(string(name)) {
		errs = append(errs, field.Invalid(fldPath, name, msg))
	}
	if len(errs) > 0 {
		return errs
	}
	if !strings.Contains(string(name), "/") && !standardResourceNames[name] &&
		!strings.HasPrefix(string(name), hugePagesPrefix) && !strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix+hugePagesPrefix) {
		errs = append(errs, field.Invalid(fldPath, name, "must be a standard resource type or fully qualified"))
	}
	return errs
}

func containerResourceName(name corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	errs := resourceName(name, fldPath)
	if !strings.Contains(string(name), "/") {
		if name != corev1.ResourceCPU && name != corev1.ResourceMemory && name != corev1.ResourceEphemeralStorage && !isHugePages(name) {
			errs = append(errs, field.Invalid(fldPath, name, "must be a standard resource for containers"))
		}
	} else if !isNative(name) && !isExtended(name) {
		errs = append(errs, field.Invalid(fldPath, name, "doesn't follow extended resource name standard"))
	}
	return errs
}

func podResourceName(name corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	if errs := resourceName(name, fldPath); len(errs) > 0 {
		return errs
	}
	if name != corev1.ResourceCPU && name != corev1.ResourceMemory && !isHugePages(name) {
		return field.ErrorList{field.NotSupported(fldPath, name, []string{string(corev1.ResourceCPU), hugePagesPrefix, string(corev1.ResourceMemory)})}
	}
	return nil
}

// hugePagesDivisible: the quantity is a whole multiple of the page size the
// name gives (hugepages-2Mi).
func hugePagesDivisible(name corev1.ResourceName, q resource.Quantity) bool {
	pageSize, err := resource.ParseQuantity(strings.TrimPrefix(string(name), hugePagesPrefix))
	if err != nil || pageSize.Sign() <= 0 || pageSize.MilliValue()%1000 != 0 {
		return false
	}
	return q.Value()%pageSize.Value() == 0
}

func validateQuantity(name corev1.ResourceName, q resource.Quantity, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if q.Sign() < 0 {
		errs = append(errs, field.Invalid(fldPath, q.String(), "must be greater than or equal to 0"))
	}
	if isExtended(name) && q.MilliValue()%1000 != 0 {
		errs = append(errs, field.Invalid(fldPath, q, "must be an integer"))
	}
	if isHugePages(name) && !hugePagesDivisible(name, q) {
		errs = append(errs, field.Invalid(fldPath, q.String(), fmt.Sprintf("%s is not positive integer multiple of %s", q.String(), name)))
	}
	return errs
}

// validateResourceRequirements checks a container's or the pod's resources
// (nameFn says which names each may use): non-negative quantities, whole
// numbers for extended resources, requests no greater than limits, a limit
// equal to the request for extended resources and hugepages, hugepages a
// multiple of the page size and only beside cpu or memory.
func validateResourceRequirements(req *corev1.ResourceRequirements, nameFn func(corev1.ResourceName, *field.Path) field.ErrorList, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	limPath, reqPath := fldPath.Child("limits"), fldPath.Child("requests")
	cpuOrMemory, hugePages := false, false
	for name, q := range req.Limits {
		p := limPath.Key(string(name))
		errs = append(errs, nameFn(name, p)...)
		errs = append(errs, validateQuantity(name, q, p)...)
		hugePages = hugePages || isHugePages(name)
		cpuOrMemory = cpuOrMemory || name == corev1.ResourceCPU || name == corev1.ResourceMemory
	}
	for name, q := range req.Requests {
		p := reqPath.Key(string(name))
		errs = append(errs, nameFn(name, p)...)
		errs = append(errs, validateQuantity(name, q, p)...)
		if limit, ok := req.Limits[name]; ok {
			if q.Cmp(limit) != 0 && !overcommitAllowed(name) {
				errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be equal to %s limit of %s", name, limit.String())))
			} else if q.Cmp(limit) > 0 {
				errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, limit.String())))
			}
		} else if !overcommitAllowed(name) {
			errs = append(errs, field.Required(limPath, "Limit must be set for non overcommitable resources"))
		}
		hugePages = hugePages || isHugePages(name)
		cpuOrMemory = cpuOrMemory || name == corev1.ResourceCPU || name == corev1.ResourceMemory
	}
	if hugePages && !cpuOrMemory {
		errs = append(errs, field.Forbidden(fldPath, "HugePages require cpu or memory"))
	}
	// Claims (and spec.resourceClaims) are left to a plugged-in validator.
	return errs
}

// validatePodResources checks pod-level resources (not on Windows, no
// claims): pod requests no less than what the containers request together,
// pod limits no less than any container's.
func validatePodResources(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	if spec.OS != nil && spec.OS.Name == corev1.Windows {
		return field.ErrorList{field.Forbidden(fldPath, "may not be set for a windows pod")}
	}
	var errs field.ErrorList
	if spec.Resources.Claims != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("claims"), "claims may not be set for Resources at pod-level"))
	}
	noClaims := *spec.Resources
	noClaims.Claims = nil
	errs = append(errs, validateResourceRequirements(&noClaims, podResourceName, fldPath)...)

	requests := aggregateContainers(spec, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Requests })
	for name, sum := range requests {
		podRequest, ok := spec.Resources.Requests[name]
		if ok && sum.Cmp(podRequest) > 0 {
			errs = append(errs, field.Invalid(fldPath.Child("requests").Key(string(name)), podRequest.String(),
				fmt.Sprintf("must be greater than or equal to aggregate container requests of %s", sum.String())))
		}
	}
	limits := aggregateContainers(spec, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Limits })
	for name, sum := range limits {
		if !isHugePages(name) {
			continue
		}
		podLimit, ok := spec.Resources.Limits[name]
		if ok && sum.Cmp(podLimit) > 0 {
			errs = append(errs, field.Invalid(fldPath.Child("limits").Key(string(name)), podLimit.String(),
				fmt.Sprintf("must be greater than or equal to aggregate container limits of %s", sum.String())))
		}
	}
	for i, ctr := range spec.Containers {
		for name, limit := range ctr.Resources.Limits {
			podLimit, ok := spec.Resources.Limits[name]
			if ok && limit.Cmp(podLimit) > 0 {
				// Kubernetes' path: resources.containers[i][name].limits.
				errs = append(errs, field.Invalid(fldPath.Child("containers").Index(i).Key(string(name)).Child("limits"), limit.String(),
					fmt.Sprintf("must be less than or equal to pod limits of %s", podLimit.String())))
			}
		}
	}
	return errs
}

// aggregateContainers adds up what the containers need together, as the
// scheduler does: the regular and the restartable (sidecar) init
// containers run side by side; each other init container runs alone beside
// the sidecars started before it; the pod needs the larger of the two.
func aggregateContainers(spec *corev1.PodSpec, of func(*corev1.Container) corev1.ResourceList) corev1.ResourceList {
	sum := corev1.ResourceList{}
	add := func(to, from corev1.ResourceList) {
		for name, q := range from {
			total := to[name]
			total.Add(q)
			to[name] = total
		}
	}
	for i := range spec.Containers {
		add(sum, of(&spec.Containers[i]))
	}
	sidecars, initMax := corev1.ResourceList{}, corev1.ResourceList{}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		var use corev1.ResourceList
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			add(sum, of(c))
			add(sidecars, of(c))
			use = sidecars
		} else {
			use = corev1.ResourceList{}
			add(use, of(c))
			add(use, sidecars)
		}
		for name, q := range use {
			if cur, ok := initMax[name]; !ok || q.Cmp(cur) > 0 {
				initMax[name] = q.DeepCopy()
			}
		}
	}
	for name, q := range initMax {
		if cur, ok := sum[name]; !ok || q.Cmp(cur) > 0 {
			sum[name] = q.DeepCopy()
		}
	}
	return sum
}

// validateEnvValueFrom: one source, and not beside a value; the key
// selectors of configMapKeyRef and secretKeyRef. The contents of fieldRef,
// resourceFieldRef and fileKeyRef are left to a plugged-in validator.
func validateEnvValueFrom(ev *corev1.EnvVar, fldPath *field.Path) field.ErrorList {
	from := ev.ValueFrom
	if from == nil {
		return nil
	}
	var errs field.ErrorList
	sources := 0
	if from.FieldRef != nil {
		sources++
	}
	if from.ResourceFieldRef != nil {
		sources++
	}
	if ref := from.ConfigMapKeyRef; ref != nil {
		sources++
		errs = append(errs, keySelector(ref.Name, ref.Key, fldPath.Child("configMapKeyRef"))...)
	}
	if ref := from.SecretKeyRef; ref != nil {
		sources++
		errs = append(errs, keySelector(ref.Name, ref.Key, fldPath.Child("secretKeyRef"))...)
	}
	if from.FileKeyRef != nil {
		sources++
	}
	switch {
	case sources == 0:
		errs = append(errs, field.Invalid(fldPath, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"))
	case ev.Value != "":
		errs = append(errs, field.Invalid(fldPath, "", "may not be specified when `value` is not empty"))
	case sources > 1:
		errs = append(errs, field.Invalid(fldPath, "", "may not have more than one field specified at a time"))
	}
	return errs
}

func keySelector(name, key string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range kvalidation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(fldPath.Child("name"), name, msg))
	}
	if key == "" {
		return append(errs, field.Required(fldPath.Child("key"), ""))
	}
	for _, msg := range kvalidation.IsConfigMapKey(key) {
		errs = append(errs, field.Invalid(fldPath.Child("key"), key, msg))
	}
	return errs
}

// validateProbes checks a container's liveness, readiness and startup
// probes (after Kubernetes' defaults: periodSeconds 10, timeoutSeconds 1,
// successThreshold 1, failureThreshold 3, httpGet path / and scheme HTTP):
// successThreshold 1 for liveness and startup probes, no
// terminationGracePeriodSeconds on readiness probes.
func validateProbes(ctr *corev1.Container, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if probe := ctr.LivenessProbe; probe != nil {
		p := fldPath.Child("livenessProbe")
		errs = append(errs, validateProbe(probe, p)...)
		if successThreshold(probe) != 1 {
			errs = append(errs, field.Invalid(p.Child("successThreshold"), successThreshold(probe), "must be 1"))
		}
	}
	if probe := ctr.ReadinessProbe; probe != nil {
		p := fldPath.Child("readinessProbe")
		errs = append(errs, validateProbe(probe, p)...)
		if probe.TerminationGracePeriodSeconds != nil {
			errs = append(errs, field.Invalid(p.Child("terminationGracePeriodSeconds"), probe.TerminationGracePeriodSeconds, "must not be set for readinessProbes"))
		}
	}
	if probe := ctr.StartupProbe; probe != nil {
		p := fldPath.Child("startupProbe")
		errs = append(errs, validateProbe(probe, p)...)
		if successThreshold(probe) != 1 {
			errs = append(errs, field.Invalid(p.Child("successThreshold"), successThreshold(probe), "must be 1"))
		}
	}
	return errs
}

func successThreshold(probe *corev1.Probe) int32 {
	if probe.SuccessThreshold == 0 {
		return 1 // Kubernetes' default
	}
	return probe.SuccessThreshold
}

// validateProbe: one handler (exec with a command, httpGet port, scheme
// and header names, tcpSocket port, grpc port; not the grpc service) and
// non-negative numbers.
func validateProbe(probe *corev1.Probe, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	h := &probe.ProbeHandler
	handlers := 0
	handler := func(set bool, name string, check func(p *field.Path) field.ErrorList) {
		if !set {
			return
		}
		p := fldPath.Child(name)
		if handlers > 0 {
			errs = append(errs, field.Forbidden(p, "may not specify more than 1 handler type"))
			return
		}
		handlers++
		if check != nil {
			errs = append(errs, check(p)...)
		}
	}
	handler(h.Exec != nil, "exec", func(p *field.Path) field.ErrorList {
		if len(h.Exec.Command) == 0 {
			return field.ErrorList{field.Required(p.Child("command"), "")}
		}
		return nil
	})
	handler(h.HTTPGet != nil, "httpGet", func(p *field.Path) field.ErrorList {
		var errs field.ErrorList
		errs = append(errs, portNumOrName(h.HTTPGet.Port, p.Child("port"))...)
		switch h.HTTPGet.Scheme {
		case "", corev1.URISchemeHTTP, corev1.URISchemeHTTPS: // "" defaults to HTTP
		default:
			errs = append(errs, field.NotSupported(p.Child("scheme"), h.HTTPGet.Scheme, []corev1.URIScheme{corev1.URISchemeHTTP, corev1.URISchemeHTTPS}))
		}
		for _, header := range h.HTTPGet.HTTPHeaders {
			for _, msg := range kvalidation.IsHTTPHeaderName(header.Name) {
				errs = append(errs, field.Invalid(p.Child("httpHeaders"), header.Name, msg))
			}
		}
		return errs
	})
	handler(h.TCPSocket != nil, "tcpSocket", func(p *field.Path) field.ErrorList {
		return portNumOrName(h.TCPSocket.Port, p.Child("port"))
	})
	handler(h.GRPC != nil, "grpc", func(p *field.Path) field.ErrorList {
		var errs field.ErrorList
		for _, msg := range kvalidation.IsValidPortNum(int(h.GRPC.Port)) {
			errs = append(errs, field.Invalid(p.Child("port"), h.GRPC.Port, msg))
		}
		return errs
	})
	if handlers == 0 {
		errs = append(errs, field.Required(fldPath, "must specify a handler type"))
	}
	for _, n := range []struct {
		name  string
		value int32
	}{
		{"initialDelaySeconds", probe.InitialDelaySeconds}, {"timeoutSeconds", probe.TimeoutSeconds},
		{"periodSeconds", probe.PeriodSeconds}, {"successThreshold", probe.SuccessThreshold},
		{"failureThreshold", probe.FailureThreshold},
	} {
		if n.value < 0 {
			errs = append(errs, field.Invalid(fldPath.Child(n.name), int64(n.value), "must be greater than or equal to 0"))
		}
	}
	if g := probe.TerminationGracePeriodSeconds; g != nil && *g <= 0 {
		errs = append(errs, field.Invalid(fldPath.Child("terminationGracePeriodSeconds"), *g, "must be greater than 0"))
	}
	return errs
}

func portNumOrName(port intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if port.Type == intstr.String {
		for _, msg := range kvalidation.IsValidPortName(port.StrVal) {
			errs = append(errs, field.Invalid(fldPath, port.StrVal, msg))
		}
		return errs
	}
	for _, msg := range kvalidation.IsValidPortNum(port.IntValue()) {
		errs = append(errs, field.Invalid(fldPath, port.IntValue(), msg))
	}
	return errs
}

// validateTolerations checks tolerations as Kubernetes does (the numeric
// operators Lt and Gt are refused, as with Kubernetes' default options).
func validateTolerations(tolerations []corev1.Toleration, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, tol := range tolerations {
		p := fldPath.Index(i)
		if tol.Key != "" {
			errs = append(errs, metav1validation.ValidateLabelName(tol.Key, p.Child("key"))...)
		}
		if tol.Key == "" && tol.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(p.Child("operator"), tol.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if tol.TolerationSeconds != nil && tol.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(p.Child("effect"), tol.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch tol.Operator {
		case corev1.TolerationOpEqual, "":
			if msgs := kvalidation.IsValidLabelValue(tol.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("operator"), tol.Value, strings.Join(msgs, ";")))
			}
		case corev1.TolerationOpExists:
			if tol.Value != "" {
				errs = append(errs, field.Invalid(p.Child("operator"), tol.Value, "value must be empty when `operator` is 'Exists'"))
			}
		case corev1.TolerationOpLt, corev1.TolerationOpGt:
			errs = append(errs, field.NotSupported(p.Child("operator"), tol.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists, corev1.TolerationOpLt, corev1.TolerationOpGt}))
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), tol.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
		}
		switch tol.Effect {
		case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			errs = append(errs, field.NotSupported(p.Child("effect"), tol.Effect,
				[]corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}))
		}
	}
	return errs
}
