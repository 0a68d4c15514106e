// Package controller is the client-go half of the example Volcano Job
// controller: typed informers and listers of Jobs, PodGroups and Commands
// on vcjob's scheme registration (NewVolcanoForConfig), a pod informer that
// decodes pods without their managed fields and calls its handlers on the
// reflector's goroutine (NewPodClient, PodListWatch), a clientset
// informer of PriorityClasses, the workers that run vcjob's processing
// step, the statemachine.Applier that talks to the API server, and the
// metrics on prometheus/client_golang registries.
//
//	metrics := controller.NewMetrics()
//	metrics.RegisterClientGoMetrics() // once per process
//	cfg.Wrap(controller.CountRequests(metrics))
//	cfg.Wrap(controller.DiscardAnswers) // pod creates' answers are not read
//	volcano, err := controller.NewVolcanoForConfig(cfg)
//	...
//	pods, err := controller.NewPodClient(kubeCfg) // kubeCfg: cfg asking for protobuf
//	...
//	c, err := controller.New(controller.Config{Kube: kube, Pods: controller.PodListWatch(pods),
//		Volcano: volcano, Workers: 4, MaxRequeue: 15, Metrics: metrics})
//	...
//	err = c.Run(ctx) // until ctx is done
package controller
