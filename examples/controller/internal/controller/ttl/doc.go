// Package ttl is Volcano's garbage collector of finished Jobs
// (pkg/controllers/garbagecollector: spec.ttlSecondsAfterFinished) on the
// vcjob library's ttl package (imported here as vcttl): the Job
// informer's add and update handlers queue a job when ttl.Enqueues says
// so, and a worker runs ttl.Process on it, which judges the cached copy,
// reads the job again from the API server when it has expired, and
// deletes it (Foreground, with its UID as precondition) when the copy
// read has expired too. The key is then forgotten, requeued for when the
// job expires (on the controller's clock), or retried with backoff, as
// the Result says. Nothing here decides.
//
// Where things are: controller.go (Config, New, Run, the workers), api.go
// (ttl.API on the typed clients).
//
//	c, err := ttl.New(ctx, ttl.Config{Volcano: set.Volcano, VolcanoInformers: volcano})
//	...
//	volcano.Start(ctx.Done())
//	err = c.Run(ctx) // until ctx is done
package ttl
