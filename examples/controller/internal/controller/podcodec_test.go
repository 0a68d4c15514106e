package controller

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	restclientwatch "k8s.io/client-go/rest/watch"
)

// testPod is a pod as the API server sends it mid-life: labels,
// annotations, an owner, a spec, a status with conditions, and managed
// fields from three managers.
func testPod(i int) *corev1.Pod {
	ts := metav1.NewTime(time.Date(2026, 12, 1, 10, 0, i, 0, time.UTC))
	mf := func(manager, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &ts,
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
	}
	ctrl := true
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("job-worker-%d", i), Namespace: "ns", UID: "0b5a7a5e-6c44-4b53-9b0a-51e9d3c7f1a2", ResourceVersion: fmt.Sprint(1000 + i),
			CreationTimestamp: ts, Labels: map[string]string{"volcano.sh/job-name": "job", "volcano.sh/task-spec": "worker"},
			Annotations:     map[string]string{"volcano.sh/task-index": fmt.Sprint(i), "scheduling.k8s.io/group-name": "job-0b5a7a5e"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job", Name: "job", UID: "u", Controller: &ctrl, BlockOwnerDeletion: &ctrl}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				mf("vcjob-controller", `{"f:metadata":{"f:annotations":{".":{},"f:volcano.sh/task-index":{}},"f:labels":{".":{},"f:volcano.sh/job-name":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{}}}}}`),
				mf("scheduler", `{"f:spec":{"f:nodeName":{}}}`),
				mf("kubelet", `{"f:status":{"f:conditions":{},"f:phase":{},"f:containerStatuses":{}}}`),
			},
		},
		Spec: corev1.PodSpec{
			NodeName: "node-1", SchedulerName: "volcano", Hostname: fmt.Sprintf("job-worker-%d", i), Subdomain: "job",
			Containers: []corev1.Container{{Name: "c", Image: "busybox", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}},
		},
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: ts}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "c", Ready: true, State: corev1.ContainerState{
				Running: &corev1.ContainerStateRunning{StartedAt: ts}}}},
		},
	}
}

func protobufInfo(t testing.TB, ns runtime.NegotiatedSerializer) runtime.SerializerInfo {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(ns.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	require.True(t, ok)
	return info
}

func encodePod(t testing.TB, obj runtime.Object) []byte {
	t.Helper()
	// As the API server encodes: with apiVersion and kind.
	data, err := runtime.Encode(scheme.Codecs.EncoderForVersion(protobufInfo(t, scheme.Codecs).Serializer, corev1.SchemeGroupVersion), obj)
	require.NoError(t, err)
	return data
}

// watchStream is what the API server sends on a protobuf pod watch: one
// length-prefixed frame per event.
func watchStream(t testing.TB, events ...watch.Event) []byte {
	t.Helper()
	info := protobufInfo(t, scheme.Codecs)
	var out bytes.Buffer
	w := info.StreamSerializer.Framer.NewFrameWriter(&out)
	for _, e := range events {
		ev := metav1.WatchEvent{Type: string(e.Type), Object: runtime.RawExtension{Raw: encodePod(t, e.Object)}}
		var frame bytes.Buffer
		require.NoError(t, info.StreamSerializer.Serializer.Encode(&ev, &frame))
		_, err := w.Write(frame.Bytes())
		require.NoError(t, err)
	}
	return out.Bytes()
}

// watchDecoder is the decoder chain client-go's REST client builds for a
// watch, on the given codecs.
func watchDecoder(t testing.TB, ns runtime.NegotiatedSerializer, stream []byte) *restclientwatch.Decoder {
	t.Helper()
	info := protobufInfo(t, ns)
	frames := info.StreamSerializer.Framer.NewFrameReader(io.NopCloser(bytes.NewReader(stream)))
	objects := ns.DecoderToVersion(info.Serializer, corev1.SchemeGroupVersion)
	return restclientwatch.NewDecoder(streaming.NewDecoder(frames, info.StreamSerializer.Serializer), objects)
}

func withoutManagedFields(p *corev1.Pod) *corev1.Pod {
	p = p.DeepCopy()
	p.ManagedFields = nil
	return p
}

func TestPodCodecsDecodeAsClientGoDoesWithoutManagedFields(t *testing.T) {
	lean := PodCodecs(scheme.Codecs.WithoutConversion())
	for i, pod := range []*corev1.Pod{testPod(0), {ObjectMeta: metav1.ObjectMeta{Name: "bare"}}, {ObjectMeta: metav1.ObjectMeta{Name: "bookmark", ResourceVersion: "7"}}} {
		data := encodePod(t, pod)
		want, _, err := protobufInfo(t, scheme.Codecs).Serializer.Decode(data, nil, nil)
		require.NoError(t, err)
		got, gvk, err := protobufInfo(t, lean).Serializer.Decode(data, nil, nil)
		require.NoError(t, err, "pod %d", i)
		require.Equal(t, podGVK, *gvk)
		require.Equal(t, withoutManagedFields(want.(*corev1.Pod)), got, "pod %d", i)

		into := testPod(9) // decoding into a used pod resets it first
		got, _, err = protobufInfo(t, lean).Serializer.Decode(data, nil, into)
		require.NoError(t, err)
		require.Same(t, into, got)
		require.Equal(t, withoutManagedFields(want.(*corev1.Pod)), got, "pod %d into a used pod", i)
	}
}

func TestPodCodecsLeaveOtherObjectsToClientGo(t *testing.T) {
	lean := PodCodecs(scheme.Codecs.WithoutConversion())
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "5"}, Items: []corev1.Pod{*testPod(1)}}
	got, _, err := protobufInfo(t, lean).Serializer.Decode(encodePod(t, list), nil, &corev1.PodList{})
	require.NoError(t, err)
	require.Len(t, got.(*corev1.PodList).Items[0].ManagedFields, 3, "a list is decoded as client-go decodes it")

	status := &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired}
	got, _, err = protobufInfo(t, lean).Serializer.Decode(encodePod(t, status), nil, nil)
	require.NoError(t, err)
	require.Equal(t, metav1.StatusReasonExpired, got.(*metav1.Status).Reason)

	// JSON is untouched.
	jsonInfo, ok := runtime.SerializerInfoForMediaType(lean.SupportedMediaTypes(), runtime.ContentTypeJSON)
	require.True(t, ok)
	got, _, err = jsonInfo.Serializer.Decode([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"j","managedFields":[{"manager":"m"}]}}`), nil, nil)
	require.NoError(t, err)
	require.Len(t, got.(*corev1.Pod).ManagedFields, 1)

	// Not protobuf at all: the wrapped serializer's error.
	_, _, err = protobufInfo(t, lean).Serializer.Decode([]byte("{}"), nil, nil)
	require.ErrorContains(t, err, "does not appear to be a protobuf message")
	_, _, err = protobufInfo(t, lean).Serializer.Decode(append(append([]byte{}, protobufPrefix...), 0x12, 0x7f), nil, nil)
	require.Error(t, err, "a truncated envelope is refused")
}

func TestPodCodecsWatchAsClientGoDoes(t *testing.T) {
	events := []watch.Event{
		{Type: watch.Added, Object: testPod(0)},
		{Type: watch.Modified, Object: testPod(1)},
		{Type: watch.Bookmark, Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "2000"}}},
		{Type: watch.Deleted, Object: testPod(2)},
		{Type: watch.Error, Object: &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired}},
	}
	stream := watchStream(t, events...)
	want := watchDecoder(t, scheme.Codecs.WithoutConversion(), stream)
	got := watchDecoder(t, PodCodecs(scheme.Codecs.WithoutConversion()), stream)
	var kept []runtime.Object
	for i := range events {
		wt, wobj, err := want.Decode()
		require.NoError(t, err)
		gt, gobj, err := got.Decode()
		require.NoError(t, err, "event %d", i)
		require.Equal(t, wt, gt)
		if p, ok := wobj.(*corev1.Pod); ok {
			wobj = withoutManagedFields(p)
		}
		require.Equal(t, wobj, gobj, "event %d", i)
		kept = append(kept, gobj)
	}
	_, _, err := got.Decode()
	require.ErrorIs(t, err, io.EOF)
	// Nothing decoded aliases the frame buffer, which later frames overwrite.
	require.True(t, equality.Semantic.DeepEqual(withoutManagedFields(testPod(0)), kept[0]), "the first pod, after the rest were decoded")
}

func TestPodCodecsRefuseAnUnknownWatchEventType(t *testing.T) {
	stream := watchStream(t, watch.Event{Type: "SOMETHING", Object: testPod(0)})
	_, _, err := watchDecoder(t, PodCodecs(scheme.Codecs.WithoutConversion()), stream).Decode()
	require.ErrorContains(t, err, "invalid watch event type")
}

// FuzzPodCodecs: whatever the bytes, no panic; where client-go's own
// decoding and the lean one both take them, they agree but for the
// managed fields.
func FuzzPodCodecs(f *testing.F) {
	f.Add(encodePod(f, testPod(0)))
	f.Add(encodePod(f, &corev1.Pod{}))
	f.Add(encodePod(f, &metav1.Status{Code: 500}))
	f.Add(watchStream(f, watch.Event{Type: watch.Modified, Object: testPod(3)}))
	std := protobufInfo(f, scheme.Codecs)
	lean := protobufInfo(f, PodCodecs(scheme.Codecs.WithoutConversion()))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, _, werr := std.Serializer.Decode(bytes.Clone(data), nil, nil)
		got, _, gerr := lean.Serializer.Decode(bytes.Clone(data), nil, nil)
		if werr == nil && gerr == nil {
			if p, ok := want.(*corev1.Pod); ok {
				want = withoutManagedFields(p)
			}
			if !equality.Semantic.DeepEqual(want, got) {
				t.Fatalf("lean decoding differs:\n%#v\n%#v", want, got)
			}
		}
		var wev, gev metav1.WatchEvent
		_, _, werr = std.StreamSerializer.Serializer.Decode(bytes.Clone(data), nil, &wev)
		_, _, gerr = lean.StreamSerializer.Serializer.Decode(bytes.Clone(data), nil, &gev)
		if werr == nil && gerr == nil && (wev.Type != gev.Type || !bytes.Equal(wev.Object.Raw, gev.Object.Raw)) {
			t.Fatalf("watch events differ: %q %x, %q %x", wev.Type, wev.Object.Raw, gev.Type, gev.Object.Raw)
		}
	})
}

// BenchmarkPodWatchDecode decodes one pod watch event the way client-go
// does and the lean way.
func BenchmarkPodWatchDecode(b *testing.B) {
	stream := watchStream(b, watch.Event{Type: watch.Modified, Object: testPod(0)})
	for _, c := range []struct {
		name string
		ns   runtime.NegotiatedSerializer
	}{{"client-go", scheme.Codecs.WithoutConversion()}, {"lean", PodCodecs(scheme.Codecs.WithoutConversion())}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			r := bytes.NewReader(stream)
			info := protobufInfo(b, c.ns)
			frames := info.StreamSerializer.Framer.NewFrameReader(io.NopCloser(r))
			d := restclientwatch.NewDecoder(streaming.NewDecoder(frames, info.StreamSerializer.Serializer), c.ns.DecoderToVersion(info.Serializer, corev1.SchemeGroupVersion))
			for b.Loop() {
				r.Reset(stream)
				if _, _, err := d.Decode(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
