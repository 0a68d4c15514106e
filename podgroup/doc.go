// Package podgroup owns the PodGroup Volcano's scheduler gangs a job's pods
// by: its name (and the legacy name still looked up), a plain mirror of the
// scheduling.volcano.sh/v1beta1 PodGroup (with PodGroupList and
// AddToScheme, for typed clients and informers), and, as pure functions of
// the job, the spec the controller wants it to have:
//
//   - Desired: the PodGroup to create: minMember, minTaskMember, queue,
//     priorityClassName, networkTopology, one subGroupPolicy per partitioned
//     task, and minResources;
//   - MinResources: the resource floor, from task priorities (looked up
//     through a PriorityLookup the caller injects), each task's pod charge
//     times its pod count. A pod is charged as Volcano charges it,
//     QuotaUsage (what Kubernetes' resource quota charges: count/pods,
//     pods, requests.*, limits.* besides cpu, memory and the rest), so a
//     PodGroup Volcano wrote is never rewritten; Options{Sizing:
//     SizeByRequests} charges the pod's requests only (PodRequest), vcjob's
//     own choice on request;
//   - Update: whether an existing PodGroup must be rewritten, and with what
//     (only priorityClassName, minMember, minResources, minTaskMember and
//     subGroupPolicy ever change);
//   - Find: the new name first, then the legacy one;
//   - ReconcilesPods: whether a PodGroup's phase lets pods be reconciled.
//
// Nothing here talks to an API server, reads a clock or logs:
//
//	name := podgroup.Name(job) // "<job>-<job uid>"
//	want := podgroup.Desired(job, priorities)
//	have, found, err := podgroup.Find(job, func(name string) (podgroup.PodGroup, bool, error) {
//		return lister.Get(job.Namespace, name) // the caller's store
//	})
//	switch {
//	case err != nil:
//		return err
//	case !found:
//		return client.Create(want)
//	}
//	if updated, write := podgroup.Update(have, want); write {
//		return client.Update(updated)
//	}
//
// # Where things are
//
//	types.go           PodGroup, PodGroupList, Spec, Status, Condition and their deep copies
//	register.go        AddToScheme, SchemeGroupVersion, Resource, GroupKind
//	name.go            Name, LegacyName, Phase, ReconcilesPods
//	find.go            Find: the new name first, then the legacy one
//	desired.go         Desired, DesiredWith, MinTaskMember, SubGroupPolicies
//	minresources.go    MinResources, MinResourcesWith, Options, Sizing, PriorityLookup
//	quota.go           QuotaUsage, PodLimits: a pod charged as Kubernetes' quota charges it
//	podrequest.go      PodRequest: a pod's effective requests
//	update.go          Update, NeedsUpdate: whether and how an existing PodGroup is rewritten
//	*_test.go          a test beside each file, tables for the rules; minresources_test.go: BenchmarkMinResources
//	property_test.go   rapid properties of MinResources
package podgroup
