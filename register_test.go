package vcjob

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

func schemeForTest(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	require.NoError(t, AddToScheme(s))
	return s
}

func registeredJob() *Job {
	job := &Job{
		ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "ml", UID: "uid-1", ResourceVersion: "7",
			Labels: map[string]string{"team": "a"}},
		Spec: JobSpec{MinAvailable: 2, Queue: "default", MaxRetry: 3,
			Plugins:  map[string][]string{"svc": {"--publish-not-ready-addresses=false"}},
			Policies: []LifecyclePolicy{{Event: PodEvictedEvent, Action: RestartJobAction}},
			Tasks: []TaskSpec{{Name: "worker", Replicas: 2, Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}},
		Status: JobStatus{State: JobState{Phase: Running}, Running: 2, RetryCount: 1, Version: 1},
	}
	return job
}

// roundTrips is every registered type with a value that fills it.
func roundTrips() []struct {
	gvk schema.GroupVersionKind
	obj runtime.Object
} {
	job := registeredJob()
	cron := &CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "ml"},
		Spec: CronJobSpec{Schedule: "@daily", JobTemplate: JobTemplateSpec{Spec: job.Spec}}}
	cmd := &Command{ObjectMeta: metav1.ObjectMeta{Name: "train-abort", Namespace: "ml"}, Action: string(AbortJobAction),
		TargetObject: &metav1.OwnerReference{APIVersion: APIVersion, Kind: JobKind, Name: "train", UID: "uid-1"}}
	return []struct {
		gvk schema.GroupVersionKind
		obj runtime.Object
	}{
		{SchemeGroupVersion.WithKind(JobKind), job},
		{SchemeGroupVersion.WithKind("JobList"), &JobList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []Job{*job}}},
		{SchemeGroupVersion.WithKind(CronJobKind), cron},
		{SchemeGroupVersion.WithKind("CronJobList"), &CronJobList{Items: []CronJob{*cron}}},
		{BusSchemeGroupVersion.WithKind(CommandKind), cmd},
		{BusSchemeGroupVersion.WithKind("CommandList"), &CommandList{Items: []Command{*cmd}}},
	}
}

func TestSchemeKnowsEveryType(t *testing.T) {
	s := schemeForTest(t)
	for _, tc := range roundTrips() {
		gvks, _, err := s.ObjectKinds(tc.obj)
		require.NoError(t, err, tc.gvk.Kind)
		assert.Equal(t, []schema.GroupVersionKind{tc.gvk}, gvks)
		obj, err := s.New(tc.gvk)
		require.NoError(t, err)
		assert.IsType(t, tc.obj, obj)
	}
	// The meta types a REST client and a watch need.
	for _, gv := range []schema.GroupVersion{SchemeGroupVersion, BusSchemeGroupVersion} {
		for _, kind := range []string{"ListOptions", "WatchEvent", "DeleteOptions"} {
			assert.True(t, s.Recognizes(gv.WithKind(kind)), "%s %s", gv, kind)
		}
	}
}

// Every type goes through the codec factory's JSON encoder (which sets
// apiVersion and kind) and back through its universal deserializer, and
// comes out equal and of its own Go type.
func TestSchemeEncodeDecode(t *testing.T) {
	s := schemeForTest(t)
	codecs := serializer.NewCodecFactory(s)
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	require.True(t, ok)
	for _, tc := range roundTrips() {
		t.Run(tc.gvk.Kind, func(t *testing.T) {
			enc := codecs.EncoderForVersion(info.Serializer, tc.gvk.GroupVersion())
			data, err := runtime.Encode(enc, tc.obj)
			require.NoError(t, err)
			assert.Contains(t, string(data), `"apiVersion":"`+tc.gvk.GroupVersion().String()+`"`)
			assert.Contains(t, string(data), `"kind":"`+tc.gvk.Kind+`"`)

			out, gvk, err := codecs.UniversalDeserializer().Decode(data, nil, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.gvk, *gvk)
			require.IsType(t, tc.obj, out)
			want := tc.obj.DeepCopyObject()
			want.GetObjectKind().SetGroupVersionKind(tc.gvk)
			assert.True(t, equality.Semantic.DeepEqual(want, out), "decoded %#v\nwant %#v", out, want)

			// The plain JSON serializer, as a REST client's watch decoder uses it.
			js := json.NewSerializerWithOptions(json.DefaultMetaFactory, s, s, json.SerializerOptions{})
			again, _, err := js.Decode(data, nil, nil)
			require.NoError(t, err)
			assert.True(t, equality.Semantic.DeepEqual(out, again))
		})
	}
}

// A document of another group or kind is not mistaken for a vcjob type.
func TestSchemeDecodeUnknownKind(t *testing.T) {
	codecs := serializer.NewCodecFactory(schemeForTest(t))
	_, _, err := codecs.UniversalDeserializer().Decode([]byte(`{"apiVersion":"batch/v1","kind":"Job"}`), nil, nil)
	assert.True(t, runtime.IsNotRegisteredError(err), "%v", err)
}

func TestKindAndResource(t *testing.T) {
	assert.Equal(t, schema.GroupKind{Group: "batch.volcano.sh", Kind: "Job"}, Kind(JobKind))
	assert.Equal(t, schema.GroupResource{Group: "batch.volcano.sh", Resource: "jobs"}, Resource("jobs"))
	assert.Equal(t, schema.GroupKind{Group: "bus.volcano.sh", Kind: "Command"}, BusKind(CommandKind))
	assert.Equal(t, schema.GroupResource{Group: "bus.volcano.sh", Resource: "commands"}, BusResource("commands"))
	assert.Equal(t, APIVersion, SchemeGroupVersion.String())
	assert.Equal(t, BusAPIVersion, BusSchemeGroupVersion.String())
}
