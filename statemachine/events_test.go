package statemachine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/plugins"
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/record"
	"github.com/vcjob/vcjob/request"
	"github.com/vcjob/vcjob/statemachine"
	"github.com/vcjob/vcjob/statemachine/memcluster"
)

// faulty is a memcluster whose lookups and writes fail as told, by
// Applier method name.
type faulty struct {
	*memcluster.Cluster
	fail map[string]error
}

func (f *faulty) PodGroupState(ctx context.Context, job *vcjob.Job) (statemachine.PodGroupState, error) {
	if err := f.fail["PodGroupState"]; err != nil {
		return statemachine.PodGroupState{}, err
	}
	return f.Cluster.PodGroupState(ctx, job)
}

func (f *faulty) ApplyObjects(ctx context.Context, objs plugins.Objects) error {
	if err := f.fail["ApplyObjects"]; err != nil {
		return err
	}
	return f.Cluster.ApplyObjects(ctx, objs)
}

func (f *faulty) ApplyPodGroup(ctx context.Context, pg *podgroup.PodGroup) error {
	if err := f.fail["ApplyPodGroup"]; err != nil {
		return err
	}
	return f.Cluster.ApplyPodGroup(ctx, pg)
}

func (f *faulty) EnsureClaim(ctx context.Context, job *vcjob.Job, claim statemachine.Claim) error {
	if err := f.fail["EnsureClaim"]; err != nil {
		return err
	}
	return f.Cluster.EnsureClaim(ctx, job, claim)
}

func (f *faulty) ClaimExists(ctx context.Context, namespace, name string) (bool, error) {
	if err := f.fail["ClaimExists"]; err != nil {
		return false, err
	}
	return f.Cluster.ClaimExists(ctx, namespace, name)
}

func (f *faulty) UpdateJob(ctx context.Context, job *vcjob.Job) error {
	if err := f.fail["UpdateJob"]; err != nil {
		return err
	}
	return f.Cluster.UpdateJob(ctx, job)
}

// flaky is a plugin whose hook named fail fails with boom.
type flaky struct{ fail string }

var boom = errors.New("boom")

func (f flaky) Name() string { return "flaky" }
func (f flaky) err(hook string) error {
	if f.fail == hook {
		return boom
	}
	return nil
}
func (f flaky) OnPodCreate(*corev1.Pod, *vcjob.Job) error { return f.err("OnPodCreate") }
func (f flaky) OnJobAdd(*vcjob.Job) (plugins.Objects, error) {
	return plugins.Objects{}, f.err("OnJobAdd")
}
func (f flaky) OnJobUpdate(*vcjob.Job) (plugins.Objects, error) {
	return plugins.Objects{}, f.err("OnJobUpdate")
}
func (f flaky) OnJobDelete(*vcjob.Job) (plugins.Objects, error) {
	return plugins.Objects{}, f.err("OnJobDelete")
}

// A StatusError as client-go returns one, with no details: its Go syntax
// (%#v) is what Volcano prints, and has no pointer in it.
var forbidden = &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure,
	Message: `pods "j-w-1" is forbidden: exceeded quota`, Reason: metav1.StatusReasonForbidden, Code: 403}}

// forbiddenGo is its Go syntax, as this apimachinery prints it (the
// fields of metav1.Status vary between versions): a message built with
// %#v starts &errors.StatusError{ErrStatus:v1.Status{... where one built
// with %v would read its text.
var forbiddenGo = fmt.Sprintf("%#v", forbidden)

func condition(t podgroup.ConditionType, status corev1.ConditionStatus, at int, message string) podgroup.Condition {
	return podgroup.Condition{Type: t, Status: status, Message: message, Reason: "NotEnoughResources",
		LastTransitionTime: metav1.NewTime(now.Add(time.Duration(at) * time.Minute))}
}

// TestEvents pins the reason and message of every Event the three calls
// record, and what records none.
func TestEvents(t *testing.T) {
	if !strings.HasPrefix(forbiddenGo, `&errors.StatusError{ErrStatus:v1.Status{TypeMeta:v1.TypeMeta{Kind:"", APIVersion:""}, ListMeta:v1.ListMeta{`) {
		t.Fatalf("%%#v of a StatusError reads %s", forbiddenGo)
	}
	unschedulable := "3/3 tasks in gang unschedulable: pod group is not ready, 3 minAvailable"
	for _, tc := range []struct {
		name string
		// phase is the job's (Running has its two pods, running).
		phase    vcjob.JobPhase
		pgPhase  podgroup.Phase // "": no PodGroup
		conds    []podgroup.Condition
		volumes  []vcjob.VolumeSpec
		plugin   string // the hook the flaky plugin fails ("-": no plugin)
		fail     map[string]error
		cluster  func(c *memcluster.Cluster)
		action   vcjob.Action
		replicas int32 // of the task, when not 2
		deleted  bool
		want     []record.Event
		wantErr  bool
	}{
		{name: "a new job records nothing", want: nil},
		{name: "a running job's sync records nothing", phase: vcjob.Running, pgPhase: podgroup.PhaseRunning},
		{name: "JobStatusError: the first status write fails",
			cluster: func(c *memcluster.Cluster) { c.FailStatus = func(*vcjob.Job) error { return boom } },
			want:    []record.Event{{Type: "Warning", Reason: "JobStatusError", Message: "Failed to initialize job status, err: boom"}}, wantErr: true},
		{name: "a later status write fails: nothing", phase: vcjob.Pending, pgPhase: podgroup.PhaseInqueue,
			cluster: func(c *memcluster.Cluster) { c.FailStatus = func(*vcjob.Job) error { return boom } }, wantErr: true},
		{name: "PluginError: OnJobAdd fails, its error as it is", plugin: "OnJobAdd",
			want: []record.Event{{Type: "Warning", Reason: "PluginError", Message: "Execute plugin when job add failed, err: boom"}}, wantErr: true},
		{name: "PluginError: OnJobUpdate fails, and the message says job add", phase: vcjob.Running, pgPhase: podgroup.PhaseRunning, plugin: "OnJobUpdate",
			want: []record.Event{{Type: "Warning", Reason: "PluginError", Message: "Execute plugin when job add failed, err: boom"}}, wantErr: true},
		{name: "PluginError: the plugins' objects cannot be written", plugin: "", fail: map[string]error{"ApplyObjects": forbidden},
			want: []record.Event{{Type: "Warning", Reason: "PluginError", Message: `Execute plugin when job add failed, err: pods "j-w-1" is forbidden: exceeded quota`}}, wantErr: true},
		{name: "PVCError: a claim the job names does not exist", phase: vcjob.Pending, pgPhase: podgroup.PhaseInqueue,
			volumes: []vcjob.VolumeSpec{{MountPath: "/data", VolumeClaimName: "data"}},
			want: []record.Event{{Type: "Warning", Reason: "PVCError",
				Message: "Failed to create PVC, err: pvc data is not found, the job will be in the Pending state until the PVC is created"}}, wantErr: true},
		{name: "PVCError: a claim cannot be created",
			volumes: []vcjob.VolumeSpec{{MountPath: "/data", VolumeClaim: &corev1.PersistentVolumeClaimSpec{}}}, fail: map[string]error{"EnsureClaim": boom},
			want: []record.Event{{Type: "Warning", Reason: "PVCError", Message: "Failed to create PVC, err: boom"}}, wantErr: true},
		{name: "PVCError: a generated claim name cannot be looked up",
			volumes: []vcjob.VolumeSpec{{MountPath: "/data", VolumeClaim: &corev1.PersistentVolumeClaimSpec{}}}, fail: map[string]error{"ClaimExists": boom},
			want: []record.Event{{Type: "Warning", Reason: "PVCError", Message: "Failed to create PVC, err: boom"}}, wantErr: true},
		{name: "PVCError: the generated claim names cannot be written back",
			volumes: []vcjob.VolumeSpec{{MountPath: "/data", VolumeClaim: &corev1.PersistentVolumeClaimSpec{}}}, fail: map[string]error{"UpdateJob": boom},
			want: []record.Event{{Type: "Warning", Reason: "PVCError", Message: "Failed to create PVC, err: boom"}}, wantErr: true},
		{name: "a running job's missing claim is not looked for", phase: vcjob.Running, pgPhase: podgroup.PhaseRunning,
			volumes: []vcjob.VolumeSpec{{MountPath: "/data", VolumeClaimName: "data"}}},
		{name: "PodGroupError: the PodGroup cannot be created", fail: map[string]error{"ApplyPodGroup": boom},
			want: []record.Event{{Type: "Warning", Reason: "PodGroupError", Message: "Failed to create PodGroup, err: boom"}}, wantErr: true},
		{name: "PodGroupError: the PodGroup cannot be updated", phase: vcjob.Running, pgPhase: podgroup.PhaseRunning, fail: map[string]error{"ApplyPodGroup": boom},
			want: []record.Event{{Type: "Warning", Reason: "PodGroupError", Message: "Failed to create PodGroup, err: boom"}}, wantErr: true},
		{name: "PodGroupError: the PodGroup cannot be read", phase: vcjob.Running, pgPhase: podgroup.PhaseRunning, fail: map[string]error{"PodGroupState": boom},
			want: []record.Event{{Type: "Warning", Reason: "PodGroupError", Message: "Failed to create PodGroup, err: boom"}}, wantErr: true},
		{name: "PodGroupPending: the latest true condition is Unschedulable, and the sync goes on", phase: vcjob.Pending, pgPhase: podgroup.PhaseInqueue,
			conds: []podgroup.Condition{condition(podgroup.ConditionScheduled, corev1.ConditionTrue, 1, ""), condition(podgroup.ConditionUnschedulable, corev1.ConditionTrue, 2, unschedulable)},
			want:  []record.Event{{Type: "Warning", Reason: "PodGroupPending", Message: "PodGroup ns:j unschedulable, reason: " + unschedulable}}},
		{name: "PodGroupPending: any type but Scheduled, lower-cased", phase: vcjob.Pending, pgPhase: podgroup.PhasePending,
			conds: []podgroup.Condition{condition("Unenqueueable", corev1.ConditionTrue, 0, "queue q1 is full")},
			want:  []record.Event{{Type: "Warning", Reason: "PodGroupPending", Message: "PodGroup ns:j unenqueueable, reason: queue q1 is full"}}},
		{name: "PodGroupPending: a % in the message is formatted again, as Eventf does", phase: vcjob.Pending, pgPhase: podgroup.PhaseInqueue,
			conds: []podgroup.Condition{condition(podgroup.ConditionUnschedulable, corev1.ConditionTrue, 0, "50% of nodes, 100%")},
			want:  []record.Event{{Type: "Warning", Reason: "PodGroupPending", Message: "PodGroup ns:j unschedulable, reason: 50%!o(MISSING)f nodes, 100%!(NOVERB)"}}},
		{name: "PodGroupPending: of equal times the first wins", phase: vcjob.Pending, pgPhase: podgroup.PhaseInqueue,
			conds: []podgroup.Condition{condition(podgroup.ConditionUnschedulable, corev1.ConditionTrue, 1, "first"), condition(podgroup.ConditionScheduled, corev1.ConditionTrue, 1, "")},
			want:  []record.Event{{Type: "Warning", Reason: "PodGroupPending", Message: "PodGroup ns:j unschedulable, reason: first"}}},
		{name: "no PodGroupPending once Scheduled is the latest", phase: vcjob.Running, pgPhase: podgroup.PhaseRunning,
			conds: []podgroup.Condition{condition(podgroup.ConditionUnschedulable, corev1.ConditionTrue, 1, unschedulable), condition(podgroup.ConditionScheduled, corev1.ConditionTrue, 2, "")}},
		{name: "no PodGroupPending for a condition that is not true", phase: vcjob.Pending, pgPhase: podgroup.PhaseInqueue,
			conds: []podgroup.Condition{condition(podgroup.ConditionUnschedulable, corev1.ConditionFalse, 1, unschedulable)}},
		{name: "FailedCreate: every failed create, %#v of its error, in plan order", phase: vcjob.Pending, pgPhase: podgroup.PhaseInqueue,
			cluster: func(c *memcluster.Cluster) {
				c.FailCreate = func(p *corev1.Pod) error {
					if p.Name == "j-w-1" {
						return forbidden
					}
					return boom
				}
			},
			want: []record.Event{{Type: "Warning", Reason: "FailedCreate",
				Message: `Error creating pods: [failed to create pod j-w-0, err: &errors.errorString{s:"boom"} failed to create pod j-w-1, err: ` + forbiddenGo + `]`}}, wantErr: true},
		{name: "FailedDelete in a sync: pods beyond the replicas", phase: vcjob.Running, pgPhase: podgroup.PhaseRunning, replicas: 1,
			cluster: func(c *memcluster.Cluster) { c.FailDelete = func(*corev1.Pod) error { return forbidden } },
			want: []record.Event{{Type: "Warning", Reason: "FailedDelete",
				Message: `Error deleting pods: [failed to delete pod j-w-1, err ` + forbiddenGo + `]`}}, wantErr: true},
		{name: "FailedDelete in a kill: failed marks first, as they are, then failed deletes", phase: vcjob.Running, pgPhase: podgroup.PhaseRunning, action: vcjob.RestartJobAction,
			cluster: func(c *memcluster.Cluster) {
				c.FailDelete = func(*corev1.Pod) error { return boom }
				c.FailMark = func(p *corev1.Pod) error {
					if p.Name == "j-w-1" {
						return forbidden
					}
					return nil
				}
			},
			want: []record.Event{{Type: "Warning", Reason: "FailedDelete",
				Message: `Error deleting pods: [pods "j-w-1" is forbidden: exceeded quota failed to delete pod j-w-0, err &errors.errorString{s:"boom"}]`}}, wantErr: true},
		{name: "a plugin's OnJobDelete fails: nothing", phase: vcjob.Running, pgPhase: podgroup.PhaseRunning, action: vcjob.RestartJobAction, plugin: "OnJobDelete", wantErr: true},
		{name: "a plugin's OnPodCreate fails: nothing", phase: vcjob.Pending, pgPhase: podgroup.PhaseInqueue, plugin: "OnPodCreate", wantErr: true},
		{name: "a kill records nothing", phase: vcjob.Running, pgPhase: podgroup.PhaseRunning, action: vcjob.AbortJobAction},
		{name: "a job being deleted: nothing", deleted: true, fail: map[string]error{"PodGroupState": boom}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := memcluster.New(now)
			c.GracefulDelete = true
			replicas := int32(2)
			job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "uid-j", Generation: 1},
				Spec: vcjob.JobSpec{MinAvailable: 2, MaxRetry: 3, Queue: "default", Volumes: tc.volumes,
					Tasks: []vcjob.TaskSpec{{Name: "w", Replicas: replicas, Template: podTemplate()}}},
				Status: vcjob.JobStatus{State: vcjob.JobState{Phase: tc.phase}}}
			if tc.deleted {
				job.DeletionTimestamp = &now
			}
			reg := plugins.NewRegistry()
			if tc.plugin != "-" {
				require.NoError(t, reg.Register("flaky", func([]string) (plugins.Plugin, error) { return flaky{fail: tc.plugin}, nil }))
				job.Spec.Plugins = map[string][]string{"flaky": nil}
			}
			c.PutJob(job)
			if tc.phase == vcjob.Running {
				for i := 0; i < int(replicas); i++ {
					p := statemachine.RenderPod(job, &job.Spec.Tasks[0], i)
					p.Status.Phase, p.Spec.NodeName = corev1.PodRunning, "node-0"
					c.PutPod(p)
				}
			}
			if tc.pgPhase != "" {
				desired := podgroup.Desired(job, nil)
				require.NoError(t, c.ApplyPodGroup(context.Background(), &desired))
				c.SetPodGroupPhase("ns", desired.Name, tc.pgPhase)
				c.SetPodGroupConditions("ns", desired.Name, tc.conds)
			}
			if tc.replicas != 0 {
				j := c.Job("ns", "j")
				j.Spec.Tasks[0].Replicas = tc.replicas
				j.Generation++
				c.PutJob(j)
			}
			if tc.cluster != nil {
				tc.cluster(c)
			}
			ji, err := c.JobInfo("ns", "j")
			require.NoError(t, err)
			action := tc.action
			if action == "" {
				action = vcjob.SyncJobAction
			}
			a := &statemachine.Applied{Applier: &faulty{Cluster: c, fail: tc.fail}, Now: now, Plugins: reg}
			_, err = statemachine.Execute(context.Background(), a, ji, action, request.Target{})
			assert.Equal(t, tc.wantErr, err != nil, "error: %v", err)
			assert.Equal(t, tc.want, a.Last.Events)
		})
	}
}

// TestEventsRecordedByMemcluster: the cluster's own calls keep their
// Events in its journal, in order.
func TestEventsRecordedByMemcluster(t *testing.T) {
	c := memcluster.New(now)
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "uid-j"},
		Spec: vcjob.JobSpec{MinAvailable: 1, Volumes: []vcjob.VolumeSpec{{MountPath: "/data", VolumeClaimName: "data"}},
			Tasks: []vcjob.TaskSpec{{Name: "w", Replicas: 1, Template: podTemplate()}}}}
	c.PutJob(job)
	for range 2 {
		ji, err := c.JobInfo("ns", "j")
		require.NoError(t, err)
		_, err = statemachine.Execute(context.Background(), c, ji, vcjob.SyncJobAction, request.Target{})
		require.Error(t, err)
	}
	pvc := record.Warningf("PVCError", "Failed to create PVC, err: %v", statemachine.ClaimNotFound("data"))
	assert.Equal(t, []record.Event{pvc, pvc}, c.Journal.Events)
	assert.Equal(t, []record.Event{pvc}, c.LastEffects().Events)
	c.Record([]record.Event{record.Normalf("CommandIssued", "x")})
	assert.Len(t, c.Journal.Events, 3)
}

// TestPodGroupPendingEvent: the PodGroup condition check alone, through
// PodGroupPendingEvent.
func TestPodGroupPendingEvent(t *testing.T) {
	job := &vcjob.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns"}}
	_, ok := statemachine.PodGroupPendingEvent(job, statemachine.PodGroupState{})
	assert.False(t, ok, "no PodGroup")
	_, ok = statemachine.PodGroupPendingEvent(job, statemachine.PodGroupState{Exists: true})
	assert.False(t, ok, "no condition")
	e, ok := statemachine.PodGroupPendingEvent(job, statemachine.PodGroupState{Exists: true, Conditions: []podgroup.Condition{
		condition(podgroup.ConditionUnschedulable, corev1.ConditionTrue, 3, "late"),
		condition(podgroup.ConditionUnschedulable, corev1.ConditionTrue, 1, "early"),
	}})
	require.True(t, ok)
	assert.Equal(t, "Warning PodGroupPending PodGroup ns:j unschedulable, reason: late", e.String())
}
