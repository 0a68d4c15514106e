package vcjob

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/randfill"
)

// The generated DeepCopy must copy every field and share no memory with
// the original: checked over randomly filled objects, so that a field
// whose type deepcopy-gen copies wrongly, or a zz_generated.deepcopy.go not
// regenerated after a field was added, fails here.
func TestCronJobDeepCopy(t *testing.T) {
	filler := randfill.NewWithSeed(1).NilChance(0.2).NumElements(1, 2).MaxDepth(12)
	for i := 0; i < 50; i++ {
		var list CronJobList
		filler.Fill(&list)
		list.Items = append(list.Items, CronJob{}) // an empty one too

		copied := list.DeepCopy()
		require.Equal(t, &list, copied)
		assertNoSharedMemory(t, reflect.ValueOf(&list).Elem(), reflect.ValueOf(copied).Elem(), "CronJobList")

		cj := &list.Items[0]
		obj := cj.DeepCopyObject()
		require.Equal(t, cj, obj)
		assertNoSharedMemory(t, reflect.ValueOf(cj).Elem(), reflect.ValueOf(obj.(*CronJob)).Elem(), "CronJob")
	}
}

func TestCronJobDeepCopyNil(t *testing.T) {
	assert.Nil(t, (*CronJob)(nil).DeepCopy())
	assert.Nil(t, (*CronJobList)(nil).DeepCopy())
	assert.Nil(t, (*CronJobSpec)(nil).DeepCopy())
	assert.Nil(t, (*CronJobStatus)(nil).DeepCopy())
	assert.Nil(t, (*JobTemplateSpec)(nil).DeepCopy())
	assert.Nil(t, (*CronJob)(nil).DeepCopyObject())
	assert.Nil(t, (*CronJobList)(nil).DeepCopyObject())
}

// assertNoSharedMemory fails when a pointer, slice or map in b is the one
// in a. Strings and time zones are immutable and may be shared.
func assertNoSharedMemory(t *testing.T, a, b reflect.Value, path string) {
	t.Helper()
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Errorf("%s: the copy shares the pointer", path)
			return
		}
		assertNoSharedMemory(t, a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() == 0 || b.Len() == 0 {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Errorf("%s: the copy shares the slice", path)
			return
		}
		for i := 0; i < min(a.Len(), b.Len()); i++ {
			assertNoSharedMemory(t, a.Index(i), b.Index(i), path+"[]")
		}
	case reflect.Map:
		if a.IsNil() || b.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Errorf("%s: the copy shares the map", path)
			return
		}
		for _, key := range a.MapKeys() {
			if bv := b.MapIndex(key); bv.IsValid() {
				assertNoSharedMemory(t, a.MapIndex(key), bv, path+"{}")
			}
		}
	case reflect.Interface:
		if !a.IsNil() && !b.IsNil() {
			assertNoSharedMemory(t, a.Elem(), b.Elem(), path)
		}
	case reflect.Struct:
		if a.Type() == reflect.TypeFor[time.Time]() {
			return
		}
		for i := 0; i < a.NumField(); i++ {
			assertNoSharedMemory(t, a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)
		}
	}
}
