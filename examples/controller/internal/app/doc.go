// Package app wires the controller process together: clients, the
// metrics and webhook servers, leader election, and the controllers run
// while this replica leads.
//
//	err := app.Run(ctx, app.Options{Workers: 3, MaxRequeue: 15, MetricsAddr: ":8080"}) // main.go's flags
package app
