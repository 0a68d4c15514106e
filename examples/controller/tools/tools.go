//go:build tools

// Package tools pins the versions of the real kube-apiserver and etcd that
// the controller's e2e tests run against. hack/e2e.sh builds them from here.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
