// Package request holds the work a job controller does: a Request (what
// happened to a job, its task or pod, or what a command asked for; Volcano's
// apis.Request), the key requests are queued and sharded by (JobKey), and
// the Target an action acts on (the job, a task, a partition or a pod) with
// the rule for which pods a targeted kill takes.
//
//	req := request.Request{Namespace: "ml", JobName: "mnist", TaskName: "worker",
//		PodName: "mnist-worker-1", Event: vcjob.PodFailedEvent, ExitCode: 137}
//	t := request.TargetOf(vcjob.RestartPodAction, req) // pod mnist-worker-1 of task worker
//	queue.Add(req.Key())                               // ml/mnist
package request
