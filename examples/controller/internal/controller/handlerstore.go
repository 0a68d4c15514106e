package controller

import (
	"context"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// handlerStore is the store a Reflector writes into, which calls the
// event handlers itself: the pod informer without its queue. A client-go
// informer puts each change in a FIFO that another goroutine pops to call
// the handlers; here the handlers run on the reflector's goroutine as the
// change arrives, one goroutine hand-off fewer for every pod event. It
// keeps the last object of each key, to hand handlers the old object of
// an update and to find what a relist no longer holds.
//
// Only the reflector's goroutine calls Add, Update, Delete, Replace and
// Resync; HasSynced may be called from anywhere.
type handlerStore struct {
	handler   cache.ResourceEventHandler
	transform cache.TransformFunc
	known     map[string]any
	synced    atomic.Bool
}

var _ cache.TransformingStore = (*handlerStore)(nil)

func newHandlerStore(h cache.ResourceEventHandler, transform cache.TransformFunc) *handlerStore {
	return &handlerStore{handler: h, transform: transform, known: map[string]any{}}
}

// HasSynced reports whether the first list has been handed to the handlers.
func (s *handlerStore) HasSynced() bool { return s.synced.Load() }

// Transformer lets the reflector transform what it holds for a while
// itself (a streamed initial list).
func (s *handlerStore) Transformer() cache.TransformFunc { return s.transform }

func (s *handlerStore) prepare(obj any) (any, string, error) {
	if s.transform != nil {
		var err error
		if obj, err = s.transform(obj); err != nil {
			return nil, "", err
		}
	}
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	return obj, key, err
}

func (s *handlerStore) Add(obj any) error    { _, err := s.upsert(obj, false); return err }
func (s *handlerStore) Update(obj any) error { _, err := s.upsert(obj, false); return err }

// upsert hands obj to the handlers as an add or, when its key is known, an
// update, and returns the key.
func (s *handlerStore) upsert(obj any, initial bool) (string, error) {
	obj, key, err := s.prepare(obj)
	if err != nil {
		return "", err
	}
	old, ok := s.known[key]
	s.known[key] = obj
	if ok {
		s.handler.OnUpdate(old, obj)
	} else {
		s.handler.OnAdd(obj, initial)
	}
	return key, nil
}

func (s *handlerStore) Delete(obj any) error {
	obj, key, err := s.prepare(obj)
	if err != nil {
		return err
	}
	delete(s.known, key)
	s.handler.OnDelete(obj)
	return nil
}

// Replace takes a full list (the first, or a relist after the watch was
// lost): what is new is added, what is known is updated, and what the list
// no longer holds is deleted as a tombstone, its last state unknown, as a
// client-go informer does.
func (s *handlerStore) Replace(list []any, _ string) error {
	initial := !s.synced.Load()
	seen := make(map[string]struct{}, len(list))
	for _, obj := range list {
		key, err := s.upsert(obj, initial)
		if err != nil {
			return err
		}
		seen[key] = struct{}{}
	}
	for key, old := range s.known {
		if _, ok := seen[key]; !ok {
			delete(s.known, key)
			s.handler.OnDelete(cache.DeletedFinalStateUnknown{Key: key, Obj: old})
		}
	}
	s.synced.Store(true)
	return nil
}

// Resync hands every known object to the handlers again, as an update to
// itself.
func (s *handlerStore) Resync() error {
	for _, obj := range s.known {
		s.handler.OnUpdate(obj, obj)
	}
	return nil
}

// handlerInformer is a Reflector over a handlerStore: list, watch, and the
// handlers called on the reflector's goroutine.
type handlerInformer struct {
	store     *handlerStore
	reflector *cache.Reflector
}

func newHandlerInformer(lw cache.ListerWatcher, objType runtime.Object, resync time.Duration, h cache.ResourceEventHandler, transform cache.TransformFunc) *handlerInformer {
	store := newHandlerStore(h, transform)
	return &handlerInformer{store: store, reflector: cache.NewReflectorWithOptions(lw, objType, store,
		cache.ReflectorOptions{ResyncPeriod: resync})}
}

func (i *handlerInformer) HasSynced() bool { return i.store.HasSynced() }

// Run lists, watches and relists until ctx is done.
func (i *handlerInformer) Run(ctx context.Context) { i.reflector.RunWithContext(ctx) }
