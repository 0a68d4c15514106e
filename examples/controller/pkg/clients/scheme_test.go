package clients

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/vcjob/vcjob"
	jobcache "github.com/vcjob/vcjob/cache"
	"github.com/vcjob/vcjob/manifest"
	"github.com/vcjob/vcjob/podgroup"
)

// vcjob's scheme registration serves controller-runtime's typed client as
// it serves client-go's: Jobs, their status subresource, PodGroups,
// Commands and CronJobs, listed and written as vcjob's own types.
func TestSchemeWithControllerRuntimeFakeClient(t *testing.T) {
	s, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	job, err := manifest.DecodeJob([]byte(`apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: demo, namespace: ns}
spec:
  minAvailable: 2
  tasks:
  - name: worker
    replicas: 2
    template: {spec: {containers: [{name: c, image: busybox}]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	vcjob.SetDefaults(job)
	job.Status.State.Phase = vcjob.Pending
	c := fake.NewClientBuilder().WithScheme(s).
		WithStatusSubresource(&vcjob.Job{}, &podgroup.PodGroup{}).
		WithObjects(job).Build()
	ctx := context.Background()

	var got vcjob.Job
	if err := c.Get(ctx, client.ObjectKeyFromObject(job), &got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Tasks[0].Name != "worker" || got.Spec.MinAvailable != 2 {
		t.Errorf("job read back as %+v", got.Spec)
	}
	gvk, err := c.GroupVersionKindFor(&got)
	if err != nil || gvk != vcjob.SchemeGroupVersion.WithKind(vcjob.JobKind) {
		t.Errorf("GroupVersionKindFor = %v, %v", gvk, err)
	}

	// The status subresource: a status write keeps the spec, a spec
	// write keeps the status.
	got.Status.State.Phase = vcjob.Running
	got.Status.Running = 2
	got.Spec.MaxRetry = 9
	if err := c.Status().Update(ctx, &got); err != nil {
		t.Fatal(err)
	}
	var after vcjob.Job
	if err := c.Get(ctx, client.ObjectKeyFromObject(job), &after); err != nil {
		t.Fatal(err)
	}
	if after.Status.State.Phase != vcjob.Running || after.Status.Running != 2 || after.Spec.MaxRetry != job.Spec.MaxRetry {
		t.Errorf("after a status write: phase %s running %d maxRetry %d", after.Status.State.Phase, after.Status.Running, after.Spec.MaxRetry)
	}

	var jobs vcjob.JobList
	if err := c.List(ctx, &jobs, client.InNamespace("ns")); err != nil || len(jobs.Items) != 1 {
		t.Fatalf("list jobs: %d, %v", len(jobs.Items), err)
	}

	pg := podgroup.Desired(&after, nil)
	if err := c.Create(ctx, &pg); err != nil {
		t.Fatal(err)
	}
	var pgs podgroup.PodGroupList
	if err := c.List(ctx, &pgs, client.InNamespace("ns")); err != nil || len(pgs.Items) != 1 || pgs.Items[0].Spec.MinMember != 2 {
		t.Fatalf("list podgroups: %+v, %v", pgs.Items, err)
	}
	if owner := metav1.GetControllerOf(&pgs.Items[0]); owner == nil || owner.Name != "demo" {
		t.Errorf("podgroup owner %v", owner)
	}

	cmd := &vcjob.Command{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "abort-demo"}, Action: string(vcjob.AbortJobAction),
		TargetObject: &metav1.OwnerReference{APIVersion: vcjob.APIVersion, Kind: vcjob.JobKind, Name: "demo", UID: after.UID}}
	if err := c.Create(ctx, cmd); err != nil {
		t.Fatal(err)
	}
	var cmds vcjob.CommandList
	if err := c.List(ctx, &cmds); err != nil || len(cmds.Items) != 1 {
		t.Fatalf("list commands: %d, %v", len(cmds.Items), err)
	}
	if req, ok := jobcache.CommandRequest(&cmds.Items[0]); !ok || req.JobName != "demo" || req.Action != vcjob.AbortJobAction {
		t.Errorf("command request %+v, %v", req, ok)
	}
	if err := c.Delete(ctx, cmd); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(cmd), &vcjob.Command{}); !apierrors.IsNotFound(err) {
		t.Errorf("command after delete: %v", err)
	}

	cron := &vcjob.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "nightly"},
		Spec: vcjob.CronJobSpec{Schedule: "@daily", JobTemplate: vcjob.JobTemplateSpec{Spec: job.Spec}}}
	if err := c.Create(ctx, cron); err != nil {
		t.Fatal(err)
	}
	var crons vcjob.CronJobList
	if err := c.List(ctx, &crons); err != nil || len(crons.Items) != 1 || crons.Items[0].Spec.Schedule != "@daily" {
		t.Fatalf("list cronjobs: %+v, %v", crons.Items, err)
	}
}
