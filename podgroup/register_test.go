package podgroup

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// PodGroup and PodGroupList go through the codec factory's JSON encoder and
// back through its universal deserializer unchanged.
func TestSchemeEncodeDecode(t *testing.T) {
	s := runtime.NewScheme()
	require.NoError(t, AddToScheme(s))
	codecs := serializer.NewCodecFactory(s)
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	require.True(t, ok)

	var pg PodGroup
	require.NoError(t, json.Unmarshal([]byte(volcanoPodGroup), &pg))
	for _, obj := range []runtime.Object{&pg, &PodGroupList{ListMeta: metav1.ListMeta{ResourceVersion: "3"}, Items: []PodGroup{pg}}} {
		gvks, _, err := s.ObjectKinds(obj)
		require.NoError(t, err)
		require.Len(t, gvks, 1)
		gvk := gvks[0]
		assert.Equal(t, SchemeGroupVersion, gvk.GroupVersion())

		data, err := runtime.Encode(codecs.EncoderForVersion(info.Serializer, SchemeGroupVersion), obj)
		require.NoError(t, err)
		out, got, err := codecs.UniversalDeserializer().Decode(data, nil, nil)
		require.NoError(t, err)
		assert.Equal(t, gvk, *got)
		require.IsType(t, obj, out)
		want := obj.DeepCopyObject()
		want.GetObjectKind().SetGroupVersionKind(gvk)
		assert.True(t, equality.Semantic.DeepEqual(want, out), "decoded %#v", out)
	}
	assert.True(t, s.Recognizes(SchemeGroupVersion.WithKind("WatchEvent")))
}

func TestGroupKindAndResource(t *testing.T) {
	assert.Equal(t, schema.GroupKind{Group: "scheduling.volcano.sh", Kind: "PodGroup"}, GroupKind(Kind))
	assert.Equal(t, schema.GroupResource{Group: "scheduling.volcano.sh", Resource: "podgroups"}, Resource("podgroups"))
	assert.Equal(t, APIVersion, SchemeGroupVersion.String())
}

func TestPodGroupListDeepCopy(t *testing.T) {
	var pg PodGroup
	require.NoError(t, json.Unmarshal([]byte(volcanoPodGroup), &pg))
	l := &PodGroupList{Items: []PodGroup{pg}}
	c := l.DeepCopyObject().(*PodGroupList)
	require.True(t, equality.Semantic.DeepEqual(l, c))
	c.Items[0].Spec.MinTaskMember["ps"] = 9
	assert.Equal(t, int32(1), l.Items[0].Spec.MinTaskMember["ps"], "the copy shares the items' maps")
	assert.Nil(t, (*PodGroupList)(nil).DeepCopy())
}
