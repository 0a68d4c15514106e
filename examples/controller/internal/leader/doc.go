// Package leader runs a function only while this replica holds a
// coordination.k8s.io Lease (client-go's leaderelection).
//
//	err := leader.Run(ctx, set.Kube, leader.Options{Namespace: "default", Name: "vcjob-controller",
//		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second},
//		func(ctx context.Context) error { return runControllers(ctx) }) // ErrLost when the lease is lost
package leader
