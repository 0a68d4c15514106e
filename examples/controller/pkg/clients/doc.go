// Package clients holds what every controller of this module talks to the
// API server with: the scheme (client-go's built-in types and vcjob's),
// typed clients of Volcano's resources on that scheme registration
// (client-go's generic gentype clients, as generated clientsets use), a
// shared informer factory for them, the shared informer factories of
// built-in kinds, the REST configuration all of them share, and Volcano's
// queue rules read from an informer on its Queues (Queues, for
// --queue-checks).
//
//	cfg, err := clients.RESTConfig(clients.ConfigOptions{QPS: 50, Burst: 100, UserAgent: "my-operator"})
//	set, err := clients.NewSet(cfg) // set.Kube, set.Volcano on one HTTP client
//	volcano := clients.NewVolcanoInformerFactory(set.Volcano, 0)
//	jobs := volcano.Jobs().Lister() // defaulted Jobs, as Volcano's webhook would have written them
//	volcano.Start(ctx.Done())
//
// Package fake is the Volcano client on client-go's object tracker, for
// tests.
package clients
