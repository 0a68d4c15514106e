package scenario

import (
	"io"
	"testing"
)

// A missing job or observer is an error, not a panic.
func TestRunWithoutJobOrObserver(t *testing.T) {
	if err := RunWith(nil, nil, NewText(io.Discard), Options{}); err == nil {
		t.Error("no job: no error")
	}
	job, err := Load([]byte("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j, namespace: ns}\nspec:\n  minAvailable: 1\n  tasks:\n  - name: t\n    replicas: 1\n    template:\n      spec:\n        restartPolicy: Never\n        containers: [{name: c, image: busybox}]\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := RunWith(job, nil, nil, Options{}); err == nil {
		t.Error("no observer: no error")
	}
}
