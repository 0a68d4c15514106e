package intake

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob"
	jobcache "github.com/vcjob/vcjob/cache"

	"github.com/vcjob/vcjob/examples/controller/pkg/applier"
)

// Commands (bus.volcano.sh) aimed at jobs: the add handler queues the
// command's key on a small queue of its own, so that no API call runs in
// an informer handler; its goroutine deletes the command (with its UID as
// precondition, so only one controller acts on it) and only then queues
// its request on the job's worker.

func (c *Handlers) addCommand(obj any) {
	c.event("command", "add")
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		c.logger.Error(err, "Cannot key command")
		return
	}
	c.commands.Add(key)
}

// RunCommands takes Commands aimed at vcjobs until ShutDown: delete the
// command (so only one controller acts on it), then queue its request on
// the job's worker. It logs with ctx's logger.
func (c *Handlers) RunCommands(ctx context.Context) {
	for c.processNextCommand(ctx) {
	}
}

// processNextCommand takes the next Command of the queue, waiting for
// one; a failure is retried with the queue's rate limiting, MaxRequeue
// times. False: the queue is shut down.
func (c *Handlers) processNextCommand(ctx context.Context) bool {
	key, shutdown := c.commands.Get()
	if shutdown {
		return false
	}
	defer c.commands.Done(key)
	if ctx.Err() != nil {
		return true
	}
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "command", key)
	err := c.TakeCommand(klog.NewContext(ctx, logger), key)
	switch n := c.commands.NumRequeues(key); {
	case err == nil:
		c.commands.Forget(key)
	case c.cfg.MaxRequeue < 0 || n < c.cfg.MaxRequeue:
		logger.V(2).Info("Cannot take command; requeued", "err", err)
		c.commands.AddRateLimited(key)
	default:
		logger.Error(err, "Cannot take command; dropped")
		c.commands.Forget(key)
	}
	return true
}

// TakeCommand takes the Command of key (namespace/name) from the
// informer's store, if it is aimed at a job: deleted, then its request
// queued. One gone or taken by another controller is no error.
func (c *Handlers) TakeCommand(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	cmd, err := c.command(ns, name)
	switch {
	case apierrors.IsNotFound(err):
		return nil // taken already
	case err != nil:
		return err
	}
	req, ok := jobcache.CommandRequest(cmd)
	if !ok {
		return nil // aimed at something else
	}
	callCtx, cancel := applier.CallContext(ctx)
	defer cancel()
	err = c.cfg.Volcano.Commands(cmd.Namespace).Delete(callCtx, cmd.Name,
		metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cmd.UID}})
	switch {
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		return nil // another controller took it
	case err != nil:
		return fmt.Errorf("delete command: %w", err)
	}
	c.metrics.Commands.WithLabelValues(cmd.Action).Inc()
	klog.FromContext(ctx).V(1).Info("Command taken", "job", klog.KRef(req.Namespace, req.JobName), "action", cmd.Action)
	// What Volcano's command handler does once the delete succeeded:
	// CommandIssued on the cached job, then the request.
	req, evs, _ := c.jobs.OnCommand(cmd)
	c.recordEvents(req, evs)
	c.enqueue(req)
	return nil
}

// command reads a Command from the informer's store.
func (c *Handlers) command(namespace, name string) (*vcjob.Command, error) {
	obj, ok, err := c.cmdStore.GetByKey(namespace + "/" + name)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, apierrors.NewNotFound(vcjob.BusResource("commands"), name)
	}
	cmd, isCmd := obj.(*vcjob.Command)
	if !isCmd {
		return nil, fmt.Errorf("unexpected %T in the command informer", obj)
	}
	return cmd, nil
}
