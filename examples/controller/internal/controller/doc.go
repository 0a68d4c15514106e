// Package controller is the client-go half of the example Volcano Job
// controller: typed informers and listers of Jobs, PodGroups and Commands
// on vcjob's scheme registration (NewVolcanoForConfig), clientset informers
// of pods and PriorityClasses, the workers that run vcjob's processing
// step, the statemachine.Applier that talks to the API server, and the
// metrics on a prometheus/client_golang registry.
//
//	metrics := controller.NewMetrics()
//	metrics.RegisterClientGoMetrics() // once per process
//	cfg.Wrap(controller.CountRequests(metrics))
//	volcano, err := controller.NewVolcanoForConfig(cfg)
//	...
//	c, err := controller.New(controller.Config{Kube: kube, Volcano: volcano, Workers: 4, MaxRequeue: 15, Metrics: metrics})
//	...
//	err = c.Run(ctx) // until ctx is done
package controller
