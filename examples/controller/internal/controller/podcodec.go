package controller

import (
	"bytes"
	"fmt"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The pod informer decodes every change of every pod of every job, and
// client-go's protobuf watch decoding copies each pod's bytes twice on the
// way (once into the watch event, once into the runtime.Unknown envelope)
// before decoding it, managed fields and all, which the informer's
// transform then drops. PodCodecs decodes the same bytes into the same
// Pod without the two copies and without the managed fields: about a
// third of what the controller allocated per pod event.
//
// Only protobuf pods take this path. Every other object and media type
// (a PodList, a Status, JSON) goes to the wrapped serializers unchanged.

// PodCodecs wraps base (the clientset's codecs, without conversion) for a
// REST client that lists and watches pods; see PodListWatch.
func PodCodecs(base runtime.NegotiatedSerializer) runtime.NegotiatedSerializer {
	infos := append([]runtime.SerializerInfo(nil), base.SupportedMediaTypes()...)
	for i := range infos {
		if infos[i].MediaType != runtime.ContentTypeProtobuf {
			continue
		}
		infos[i].Serializer = podSerializer{infos[i].Serializer}
		if s := infos[i].StreamSerializer; s != nil {
			stream := *s
			stream.Serializer = watchEventSerializer{s.Serializer}
			infos[i].StreamSerializer = &stream
		}
	}
	return podCodecs{NegotiatedSerializer: base, infos: infos}
}

type podCodecs struct {
	runtime.NegotiatedSerializer
	infos []runtime.SerializerInfo
}

func (c podCodecs) SupportedMediaTypes() []runtime.SerializerInfo { return c.infos }

// protobufPrefix starts every protobuf-encoded Kubernetes object.
var protobufPrefix = []byte{0x6b, 0x38, 0x73, 0x00} // "k8s\x00"

var podGVK = corev1.SchemeGroupVersion.WithKind("Pod")

// podSerializer decodes a protobuf-encoded Pod without copying its bytes
// and without its managed fields; anything else goes to the wrapped
// serializer.
type podSerializer struct{ runtime.Serializer }

func (s podSerializer) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	pod, isPod := into.(*corev1.Pod)
	if (into != nil && !isPod) || !bytes.HasPrefix(data, protobufPrefix) {
		return s.Serializer.Decode(data, defaults, into)
	}
	raw, ok := podEnvelope(data[len(protobufPrefix):])
	if !ok {
		return s.Serializer.Decode(data, defaults, into)
	}
	if pod == nil {
		pod = &corev1.Pod{}
	}
	if err := unmarshalPodLean(pod, raw); err != nil {
		return nil, &podGVK, err
	}
	gvk := podGVK
	pod.GetObjectKind().SetGroupVersionKind(gvk)
	return pod, &gvk, nil
}

// podEnvelope reads a runtime.Unknown and returns its raw bytes when it
// holds a v1 Pod in plain protobuf; false sends the data down the usual
// path (another kind, an encoding, bytes it cannot read).
func podEnvelope(b []byte) (raw []byte, ok bool) {
	var apiVersion, kind, encoding, contentType []byte
	typeMetaOK := true
	ok = bytesFields(b, func(num protowire.Number, v []byte) {
		switch num {
		case 1: // typeMeta
			typeMetaOK = bytesFields(v, func(num protowire.Number, s []byte) {
				switch num {
				case 1:
					apiVersion = s
				case 2:
					kind = s
				}
			})
		case 2:
			raw = v
		case 3:
			encoding = v
		case 4:
			contentType = v
		}
	})
	if !ok || !typeMetaOK || string(apiVersion) != "v1" || string(kind) != "Pod" || len(encoding) > 0 ||
		(len(contentType) > 0 && string(contentType) != runtime.ContentTypeProtobuf) {
		return nil, false
	}
	return raw, true
}

// bytesFields calls f with the number and value of each length-delimited
// field of a protobuf message, in order, skipping fields of other wire
// types; false when b does not parse.
func bytesFields(b []byte, f func(num protowire.Number, v []byte)) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return false
		}
		if typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[n:])
			f(num, v)
		}
		b = b[n+m:]
	}
	return true
}

// metaScratch holds a pod's metadata without its managed fields while
// ObjectMeta.Unmarshal reads it (which copies out every string).
var metaScratch = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// unmarshalPodLean is corev1.Pod's Unmarshal without the managed fields
// (ObjectMeta field 17): the same fields, read the same way (a message
// field seen twice is merged), nothing kept that aliases raw.
func unmarshalPodLean(pod *corev1.Pod, raw []byte) error {
	pod.Reset()
	for b := raw; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if num >= 1 && num <= 3 && typ != protowire.BytesType {
			return fmt.Errorf("proto: wrong wireType = %d for field %d of Pod", typ, num)
		}
		if num < 1 || num > 3 {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var err error
		switch num {
		case 1:
			err = unmarshalMetaLean(&pod.ObjectMeta, v)
		case 2:
			err = pod.Spec.Unmarshal(v)
		case 3:
			err = pod.Status.Unmarshal(v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// unmarshalMetaLean reads an ObjectMeta, leaving out its managed fields.
func unmarshalMetaLean(meta *metav1.ObjectMeta, v []byte) error {
	bufp := metaScratch.Get().(*[]byte)
	defer metaScratch.Put(bufp)
	kept, dropped := (*bufp)[:0], false
	for b := v; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return protowire.ParseError(m)
		}
		if num == 17 && typ == protowire.BytesType {
			dropped = true
		} else {
			kept = append(kept, b[:n+m]...)
		}
		b = b[n+m:]
	}
	*bufp = kept
	if !dropped {
		return meta.Unmarshal(v)
	}
	return meta.Unmarshal(kept)
}

// watchEventSerializer decodes a protobuf watch event whose object stays
// in the frame it came in (client-go decodes the object before it reads
// the next frame into the same buffer); anything else goes to the wrapped
// serializer.
type watchEventSerializer struct{ runtime.Serializer }

var watchEventTypes = map[string]string{"ADDED": "ADDED", "MODIFIED": "MODIFIED", "DELETED": "DELETED", "BOOKMARK": "BOOKMARK", "ERROR": "ERROR"}

func (s watchEventSerializer) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	ev, ok := into.(*metav1.WatchEvent)
	if !ok || ev == nil {
		return s.Serializer.Decode(data, defaults, into)
	}
	var typ, object, raw []byte
	twice := false
	ok = bytesFields(data, func(num protowire.Number, v []byte) {
		switch num {
		case 1:
			typ = v
		case 2:
			twice = twice || object != nil // a second occurrence merges: the usual path does that
			object = v
		}
	})
	if !ok || twice || !bytesFields(object, func(num protowire.Number, v []byte) {
		if num == 1 {
			raw = v
		}
	}) {
		return s.Serializer.Decode(data, defaults, into)
	}
	t, known := watchEventTypes[string(typ)]
	if !known {
		t = string(typ)
	}
	*ev = metav1.WatchEvent{Type: t}
	ev.Object.Raw = raw
	if ev.Object.Raw == nil {
		ev.Object.Raw = []byte{}
	}
	gvk := metav1.SchemeGroupVersion.WithKind("WatchEvent")
	return ev, &gvk, nil
}
