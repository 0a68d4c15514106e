package leader

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// Options name the Lease and its timing.
type Options struct {
	Namespace, Name string
	LeaseDuration   time.Duration
	RenewDeadline   time.Duration
	RetryPeriod     time.Duration
}

// ErrLost is returned when the lease was lost while run ran.
var ErrLost = errors.New("leader election lost")

// Run runs run while holding the lease, until ctx is done or the lease
// is lost (ErrLost). The election runs on a context of its own, cancelled
// only once run has returned: the lease is released (ReleaseOnCancel)
// after the last step under way finished, never while it still writes.
// It logs with ctx's logger, named "leader-election".
func Run(ctx context.Context, kube kubernetes.Interface, o Options, run func(context.Context) error) error {
	id := identity()
	logger := klog.LoggerWithValues(klog.LoggerWithName(klog.FromContext(ctx), "leader-election"), "identity", id)
	// The election's own context carries its logger (client-go's
	// election logs with it too).
	leCtx, leCancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	defer leCancel()
	var started atomic.Bool
	done := make(chan struct{})
	var runErr error
	go func() {
		<-ctx.Done()
		if !started.Load() {
			leCancel() // still waiting for the lease: give up waiting
		}
	}()
	lead := func(lctx context.Context) {
		started.Store(true)
		logger.Info("Became the leader")
		// Stop when asked to, or when the lease is lost; log as the
		// caller does.
		cctx, cancel := context.WithCancel(klog.NewContext(lctx, klog.FromContext(ctx)))
		stop := context.AfterFunc(ctx, cancel)
		runErr = run(cctx)
		stop()
		cancel()
		close(done)
		leCancel()
	}
	le, err := newElector(logger, kube, o, id, lead)
	if err != nil {
		return err
	}
	le.Run(leCtx)
	if started.Load() {
		<-done
	}
	switch {
	case runErr != nil:
		return runErr
	case started.Load() && ctx.Err() == nil:
		return ErrLost
	}
	return nil
}

// newElector builds the elector. NewLeaderElector, not RunOrDie:
// inconsistent timings (a renew deadline not under the lease duration,
// say) are an error to report, not a panic.
func newElector(logger klog.Logger, kube kubernetes.Interface, o Options, id string, lead func(context.Context)) (*leaderelection.LeaderElector, error) {
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name},
		Client:     kube.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		Name:            o.Name,
		LeaseDuration:   o.LeaseDuration,
		RenewDeadline:   o.RenewDeadline,
		RetryPeriod:     o.RetryPeriod,
		ReleaseOnCancel: true,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: lead,
			OnStoppedLeading: func() { logger.Info("No longer the leader") },
			OnNewLeader: func(leader string) {
				if leader != id {
					logger.Info("Another replica leads", "leader", leader)
				}
			},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("leader election: %w", err)
	}
	return le, nil
}

// identity is the host name and a random suffix, so two replicas on one
// host differ.
func identity() string {
	host, _ := os.Hostname()
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	return host + "_" + hex.EncodeToString(suffix)
}
