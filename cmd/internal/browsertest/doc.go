// Package browsertest checks vcjob's pictures in a real browser: headless
// Chromium, driven by chromedp, loads the simulator's timeline page (also
// for a job of 10,000 pods), the CronJob window page and the playground,
// and the tests check what a person sees there: the phase band, a lane per
// pod in the right colours, the details of a decision, an error for a
// broken manifest, the playground following the edits. Screenshots go to
// _artifacts/ at the repository's root.
//
// It is a module of its own so that the library never depends on chromedp:
//
//	cd cmd/internal/browsertest && go test ./...
//
// The tests need Chromium (Debian's chromium package) and skip, saying so,
// when it is not installed; set VCJOB_BROWSER_REQUIRED=1 (CI does) to make
// a missing browser a failure instead.
package browsertest
