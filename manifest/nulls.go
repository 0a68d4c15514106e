package manifest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// schemaNulls treats the nulls of data (the document as JSON) below its
// spec, the part Volcano's CRDs type field by field, as an API server with
// those CRDs does. Its pruning (PruneNonNullableNullsWithoutDefaults)
// removes a null field or map value whose schema is not nullable, and
// nothing else: a null field needs nothing here (Go decodes it as the
// field left out), a null map value is removed from obj, the object data
// decoded into (plugins: {ssh: null} is no ssh plugin), and a null list
// item, which the pruning keeps and the schema then refuses, is a
// problem. The template of a task and the claim of a volume, which the
// CRDs leave untyped, are left as Go decodes them, as the API server
// keeps their nulls. obj may be invalid (the decoding failed): the
// problems are still found, nothing is removed.
func schemaNulls(data []byte, obj reflect.Value) []FieldProblem {
	if !bytes.Contains(data, []byte("null")) {
		return nil
	}
	var doc map[string]any
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	spec, ok := doc["spec"]
	if !ok {
		return nil
	}
	for obj.IsValid() && obj.Kind() == reflect.Pointer {
		obj = obj.Elem()
	}
	specType, specValue := fieldByName(obj.Type(), obj, "spec")
	if specType == nil {
		return nil
	}
	var w nullWalk
	w.walk(spec, specType, specValue, "spec")
	return w.problems
}

// nullWalk collects the null list items a walk meets.
type nullWalk struct {
	problems []FieldProblem
}

// walk goes through v, a JSON value of Go type t; rv is its decoded value
// (invalid when unknown).
func (w *nullWalk) walk(v any, t reflect.Type, rv reflect.Value, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
		if rv.IsValid() {
			if rv.IsNil() {
				rv = reflect.Value{}
			} else {
				rv = rv.Elem()
			}
		}
	}
	if v == nil || untyped(t) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		keys := sortedKeys(m)
		if t == reflect.TypeFor[metav1.ObjectMeta]() {
			keys = []string{"annotations", "finalizers", "labels"} // what the CronJob CRD types of a job template's metadata
		}
		for _, key := range keys {
			if ft, fv := fieldByName(t, rv, key); ft != nil && m[key] != nil {
				w.walk(m[key], ft, fv, joinPath(path, key))
			}
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for _, key := range sortedKeys(m) {
			item := m[key]
			var iv reflect.Value
			if rv.IsValid() && !rv.IsNil() && t.Key().Kind() == reflect.String {
				k := reflect.ValueOf(key).Convert(t.Key())
				if item == nil {
					rv.SetMapIndex(k, reflect.Value{}) // pruned: the key is not there
					continue
				}
				iv = rv.MapIndex(k)
			}
			w.walk(item, t.Elem(), iv, path+"["+key+"]")
		}
	case reflect.Slice:
		list, ok := v.([]any)
		if !ok || t.Elem().Kind() == reflect.Uint8 {
			return
		}
		for i, item := range list {
			itemPath := path + "[" + strconv.Itoa(i) + "]"
			if item == nil {
				w.problems = append(w.problems, FieldProblem{Path: itemPath, Problem: "must be " + jsonKindOf(t.Elem()) + ", not null"})
				continue
			}
			var iv reflect.Value
			if rv.IsValid() && i < rv.Len() {
				iv = rv.Index(i)
			}
			w.walk(item, t.Elem(), iv, itemPath)
		}
	}
}

// untyped: the CRDs give these no schema below them (type: object,
// x-kubernetes-preserve-unknown-fields), so the API server keeps their
// nulls, which Go readers decode as they do here.
func untyped(t reflect.Type) bool {
	return t == reflect.TypeFor[corev1.PodTemplateSpec]() || t == reflect.TypeFor[corev1.PersistentVolumeClaimSpec]()
}

// fieldByName finds the field of struct type t that JSON key name decodes
// into (inlined and embedded structs searched), its type and, when rv (a
// value of t) is valid, its value; a nil type when there is none.
func fieldByName(t reflect.Type, rv reflect.Value, name string) (reflect.Type, reflect.Value) {
	if t.Kind() != reflect.Struct {
		return nil, reflect.Value{}
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" && opts == "" {
			continue
		}
		var fv reflect.Value
		if rv.IsValid() {
			fv = rv.Field(i)
		}
		if tag == "" && (f.Anonymous || strings.Contains(opts, "inline")) && f.Type.Kind() == reflect.Struct {
			if ft, v := fieldByName(f.Type, fv, name); ft != nil {
				return ft, v
			}
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		if tag == name {
			return f.Type, fv
		}
	}
	return nil, reflect.Value{}
}
