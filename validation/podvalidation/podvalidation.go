// Package podvalidation plugs Kubernetes' own pod template validation
// (k8s.io/kubernetes/pkg/apis/core/validation) into vcjob's job
// validation, as Volcano's webhook runs it: the template takes Kubernetes'
// defaults, is converted to the internal API, has its containers'
// securityContext.privileged cleared (Volcano does not check it: it
// depends on the API server's --allow-privileged), and is validated with
// pod-level resources enabled.
//
// It lives in a module of its own so that vcjob never depends on
// k8s.io/kubernetes; its test runs vcjob's built-in pod template
// validation and this one on fixed and generated templates and checks that
// they agree on every class vcjob covers.
//
//	errs := validation.ValidateJobWith(job, validation.Options{PodTemplate: podvalidation.Kubernetes})
package podvalidation

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/apis/core"
	k8sv1 "k8s.io/kubernetes/pkg/apis/core/v1"
	k8svalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/vcjob/vcjob/validation"
)

// Options are the pod validation options the comparison uses: Kubernetes'
// zero options, as Volcano's webhook passes them, with pod-level resources
// on (the PodLevelResources feature is on by default).
func Options() k8svalidation.PodValidationOptions {
	return k8svalidation.PodValidationOptions{PodLevelResourcesEnabled: true}
}

// Kubernetes validates a task's pod template with Kubernetes' own code; it
// is a validation.PodTemplateValidator. The template is not changed.
func Kubernetes(template *corev1.PodTemplateSpec, path *field.Path) field.ErrorList {
	if template == nil {
		return nil
	}
	tpl := &corev1.PodTemplate{Template: *template.DeepCopy()}
	k8sv1.SetObjectDefaults_PodTemplate(tpl)
	var internal core.PodTemplateSpec
	if err := k8sv1.Convert_v1_PodTemplateSpec_To_core_PodTemplateSpec(&tpl.Template, &internal, nil); err != nil {
		return field.ErrorList{field.InternalError(path, fmt.Errorf("converting the template: %w", err))}
	}
	for _, list := range [][]core.Container{internal.Spec.InitContainers, internal.Spec.Containers} {
		for i := range list {
			if sc := list[i].SecurityContext; sc != nil {
				sc.Privileged = nil
			}
		}
	}
	return k8svalidation.ValidatePodTemplateSpec(&internal, path, Options())
}

var _ validation.PodTemplateValidator = Kubernetes
