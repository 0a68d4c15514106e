// Package metrics holds the controller's Prometheus metrics: one
// client_golang registry, with the process and Go collectors, client-go's
// work-queue and REST-client metrics, and the controllers' own counters as
// typed fields of Metrics.
//
//	m := metrics.New()          // a registry of its own
//	m.RegisterClientGoMetrics() // once per process: client-go's metrics go to m
//	http.Handle("/metrics", m.Handler())
//	m.PodsCreated.Inc()
package metrics
