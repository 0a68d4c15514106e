package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/watchlist"
)

// handled records what the handlers were told, in order.
type handled struct {
	mu  sync.Mutex
	got []string
}

func (h *handled) add(s string) { h.mu.Lock(); h.got = append(h.got, s); h.mu.Unlock() }
func (h *handled) events() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.got...)
}

func (h *handled) handler() cache.ResourceEventHandler {
	name := func(obj any) string {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			return "tombstone " + t.Key + "@" + t.Obj.(*corev1.Pod).ResourceVersion
		}
		p := obj.(*corev1.Pod)
		return p.Namespace + "/" + p.Name + "@" + p.ResourceVersion + fmt.Sprintf("(mf %d)", len(p.ManagedFields))
	}
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { h.add(fmt.Sprintf("add %s initial=%v", name(obj), initial)) },
		UpdateFunc: func(old, obj any) { h.add("update " + name(old) + " -> " + name(obj)) },
		DeleteFunc: func(obj any) { h.add("delete " + name(obj)) },
	}
}

func pod(name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv,
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}}
}

func TestHandlerStoreTellsTheHandlersWhatAnInformerWould(t *testing.T) {
	h := &handled{}
	s := newHandlerStore(h.handler(), podTransform)
	require.False(t, s.HasSynced())
	require.NoError(t, s.Replace([]any{pod("a", "1"), pod("b", "1")}, "1"))
	require.True(t, s.HasSynced())
	require.NoError(t, s.Add(pod("c", "2")))
	require.NoError(t, s.Update(pod("a", "3")))
	require.NoError(t, s.Delete(pod("b", "4")))
	// A relist: a is unchanged, c is gone while the watch was down, d is new.
	require.NoError(t, s.Replace([]any{pod("a", "3"), pod("d", "5")}, "5"))
	require.NoError(t, s.Resync())
	require.Equal(t, []string{
		"add ns/a@1(mf 0) initial=true",
		"add ns/b@1(mf 0) initial=true",
		"add ns/c@2(mf 0) initial=false",
		"update ns/a@1(mf 0) -> ns/a@3(mf 0)",
		"delete ns/b@4(mf 0)",
		"update ns/a@3(mf 0) -> ns/a@3(mf 0)",
		"add ns/d@5(mf 0) initial=false",
		"delete tombstone ns/c@2",
	}, h.events()[:8])
	require.ElementsMatch(t, []string{"update ns/a@3(mf 0) -> ns/a@3(mf 0)", "update ns/d@5(mf 0) -> ns/d@5(mf 0)"}, h.events()[8:], "a resync updates what is known")
}

func TestHandlerInformerListsThenWatches(t *testing.T) {
	w := watch.NewFake()
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.Pod{*pod("a", "1")}}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}, fake.NewClientset()) // lists: the fake watcher cannot stream a list
	h := &handled{}
	inf := newHandlerInformer(lw, &corev1.Pod{}, 0, h.handler(), podTransform)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.Run(ctx); close(done) }()
	require.Eventually(t, inf.HasSynced, 5*time.Second, time.Millisecond)
	w.Add(pod("b", "2"))
	w.Modify(pod("a", "3"))
	w.Delete(pod("b", "4"))
	require.Eventually(t, func() bool { return len(h.events()) == 4 }, 5*time.Second, time.Millisecond)
	require.Equal(t, []string{
		"add ns/a@1(mf 0) initial=true",
		"add ns/b@2(mf 0) initial=false",
		"update ns/a@1(mf 0) -> ns/a@3(mf 0)",
		"delete ns/b@4(mf 0)",
	}, h.events())
	cancel()
	<-done
}

func TestJobPodsKeepsWatchListSemantics(t *testing.T) {
	require.True(t, watchlist.DoesClientNotSupportWatchListSemantics(jobPods(clientsetPods(fake.NewClientset()))),
		"a fake clientset's pods are listed")
	require.False(t, watchlist.DoesClientNotSupportWatchListSemantics(jobPods(PodListWatch(nil))),
		"a REST client's pods may be streamed")
}
