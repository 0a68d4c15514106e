// Package timeline draws a simulated run as one self-contained HTML page:
// the job's phase as a band over the run, the PodGroup's phase, one lane
// per pod coloured by phase (a pod replaced by a restart starts a new
// segment, marked by a notch), a marker for each request and the decision
// it got (hover or click shows the rule, the action, the target and the
// status written), and the delayed actions registered, fired and
// cancelled. The page needs nothing from the network: the data and the
// drawing code (a canvas that draws only the lanes in view, so a job of
// 10,000 pods renders as fast as one of ten) are inline.
//
// A Recorder only reads what it is given: it is a scenario.Observer, so
// the simulator's records (worker.Record), the cluster's change feed
// (memcluster.Change) and the PodGroup's phase come in as they happen:
//
//	tl := timeline.New(job.Name, scenario.Start)
//	err := scenario.Run(job, script, tl)
//	tl.WriteHTML(w)
//
// The x axis counts steps, not seconds: a simulated run does most of its
// work at one instant, so each command and each processed request takes
// one step, and the simulated time is written at each command.
//
// WriteCronHTML draws a CronJob's window (runs scheduled, started,
// skipped, replaced and finished) as inline SVG.
//
// This package is outside vcjob's pure core: it decides nothing.
package timeline
