// Package cronjob is Volcano's CronJob controller
// (pkg/controllers/cronjob) on the vcjob library's decisions: informers on
// CronJobs and Jobs queue cronjob keys as Volcano's handlers do, and each
// worker syncs a key as Volcano's processNextReq does. A sync asks the
// library's cronjob.DecideWith what to do, from the listers and the clock, makes
// the Decision's calls through the typed clients in order, hands every
// answer the lister did not predict to Decision.Answer, records the
// Decision's Events on the cronjob and requeues as it says. Nothing here
// decides: the rules are the library's (its cronjob package, imported
// here as vccronjob).
//
// Where things are: controller.go (Config, New, Run, the workers),
// handlers.go (the informers' handlers), sync.go (one sync: the Decision
// and its calls).
//
//	c, err := cronjob.New(ctx, cronjob.Config{Volcano: set.Volcano, VolcanoInformers: volcano, Workers: 3})
//	...
//	volcano.Start(ctx.Done())
//	err = c.Run(ctx) // until ctx is done
package cronjob
