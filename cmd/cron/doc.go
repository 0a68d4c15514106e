// Command cron plays Volcano's CronJob controller over a window of time: it
// decodes a CronJob manifest, then syncs it whenever the controller would
// (at each RequeueAfter, and when one of its jobs finishes) and prints every
// decision: the runs started, held back or missed, the jobs deleted, the
// Warning events, and when the next sync is due. Each job runs for -runs-for and
// then completes, or fails when -fail-every says so.
//
//	go run ./cmd/cron -cronjob cmd/cron/nightly.yaml \
//	  -from 2026-03-06T00:00:00-05:00 -to 2026-03-10T00:00:00-04:00 \
//	  [-runs-for 5m] [-fail-every 3] [-o html > window.html]
//
// -o html draws the window as one page (package cmd/internal/timeline): a row
// per scheduled run, started, skipped, replaced or finished.
package main
