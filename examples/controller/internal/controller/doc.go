// Package controller is the client-go half of the example Volcano Job
// controller: typed informers and listers of Jobs, PodGroups and Commands
// on vcjob's scheme registration (NewVolcanoForConfig), a pod informer that
// decodes pods without their managed fields and calls its handlers on the
// reflector's goroutine (NewPodClient, PodListWatch), a dialer whose
// connections read and write with raw non-blocking system calls
// (RawIODialer), a clientset informer of PriorityClasses, the workers
// that run vcjob's processing step, the statemachine.Applier that talks
// to the API server, the metrics on prometheus/client_golang registries,
// and the controller's view of one job for debugging (ViewJob,
// JobViewHandler).
//
//	metrics := controller.NewMetrics()
//	metrics.RegisterClientGoMetrics() // once per process
//	cfg.Wrap(controller.CountRequests(metrics))
//	cfg.Wrap(controller.DiscardAnswers) // pod creates' answers are not read
//	cfg.Dial = controller.RawIODialer(&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second})
//	httpClient, err := rest.HTTPClientFor(cfg) // one connection for every client
//	...
//	volcano, err := controller.NewVolcanoForConfigAndClient(cfg, httpClient)
//	...
//	pods, err := controller.NewPodClientForConfigAndClient(kubeCfg, httpClient) // kubeCfg: cfg asking for protobuf
//	...
//	c, err := controller.New(controller.Config{Kube: kube, Pods: controller.PodListWatch(pods),
//		Volcano: volcano, Workers: 4, MaxRequeue: 15, Metrics: metrics})
//	...
//	err = c.Run(ctx) // until ctx is done
package controller
