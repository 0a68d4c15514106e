#!/usr/bin/env bash
# Runs the controller's end-to-end tests against a real kube-apiserver and
# etcd. Builds the two servers first when examples/controller/bin lacks
# them (from the tools module: k8s.io/kubernetes v1.37.2 and etcd v3.7.3;
# 10-15 minutes on 2 cores with cold caches, seconds when cached).
#
#   bash examples/controller/hack/e2e.sh            # from the repository root
#   bash examples/controller/hack/e2e.sh -run Load  # extra args go to go test
#
# Environment: KUBEBUILDER_ASSETS (use servers from elsewhere),
# E2E_ARTIFACTS (where controller logs go; default examples/controller/_artifacts),
# E2E_LOAD_SHAPES (load-test shapes, default 50x20,10x200,2x1000), E2E_LOAD_JOBS /
# E2E_LOAD_PODS (one shape instead), E2E_LOAD_QPS (client QPS, default 200),
# E2E_LOAD_V (the controller's -v in the load test), E2E_LOAD_FLAGS (its options
# there instead of --coalesce-status --ordered-retries; set and empty: its defaults),
# E2E_FAULT_SEED / E2E_FAULT_SHARE / E2E_FAULT_JOBS / E2E_FAULT_PODS (TestFaults),
# E2E_LOAD_PROFILE=file (a CPU profile of the controller under load), E2E_RACE=1
# (the controller built with the race detector).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
here=$(pwd)

t0=$(date +%s)
if [ -z "${KUBEBUILDER_ASSETS:-}" ]; then
	bin="$here/bin"
	if [ ! -x "$bin/kube-apiserver" ] || [ ! -x "$bin/etcd" ]; then
		echo "== building kube-apiserver and etcd into $bin (first run: several minutes)"
		mkdir -p "$bin"
		(
			cd tools
			go mod download
			ver="-X k8s.io/component-base/version.gitVersion=v1.37.2 -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37"
			go build -ldflags "$ver" -o "$bin/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
			go build -o "$bin/etcd.tmp" go.etcd.io/etcd/server/v3
		)
		mv "$bin/kube-apiserver.tmp" "$bin/kube-apiserver"
		mv "$bin/etcd.tmp" "$bin/etcd"
		echo "== servers built in $(($(date +%s) - t0))s"
	fi
	export KUBEBUILDER_ASSETS="$bin"
fi
"$KUBEBUILDER_ASSETS/kube-apiserver" --version
# sed, not head: it reads all the output, so etcd gets no SIGPIPE (pipefail).
"$KUBEBUILDER_ASSETS/etcd" --version | sed -n 1p

export E2E_ARTIFACTS="${E2E_ARTIFACTS:-$here/_artifacts}"
mkdir -p "$E2E_ARTIFACTS"
t1=$(date +%s)
# The library is replaced from ../.. : when it gains a dependency, this
# module's go.sum lags until someone runs go mod tidy here. Say so, and
# tidy, rather than fail on a missing go.sum entry.
if ! go list -deps -test -tags e2e ./... >/dev/null 2>&1; then
	echo "== go.mod/go.sum out of date with the library; running go mod tidy (commit the result)"
	go mod tidy
fi
echo "== go vet, unit tests"
go vet ./... && go vet -tags e2e ./...
go test ./...
echo "== e2e tests (controller logs in $E2E_ARTIFACTS)"
set +e
go test -tags e2e -count=1 -timeout 30m -v ./e2e/ "$@" 2>&1 | tee "$E2E_ARTIFACTS/e2e.log"
status=${PIPESTATUS[0]}
set -e
echo "== e2e finished in $(($(date +%s) - t1))s (total $(($(date +%s) - t0))s), exit $status"
exit "$status"
