// Package e2e runs the controller against a real kube-apiserver and etcd
// (started by controller-runtime's envtest from KUBEBUILDER_ASSETS). The
// tests play the scheduler and the kubelet. They are behind the e2e build
// tag: bash hack/e2e.sh builds what is missing and runs them.
package e2e
