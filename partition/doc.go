// Package partition owns partition ids: which partition a task's pod at a
// given index belongs to, and which pods make up a partition.
//
// A task with a partition policy of size S puts the pod at index i into
// partition i/S. The controller writes that id into the pod's
// volcano.sh/partition-id label when it creates the pod, and groups pods by
// that label afterwards (so a RestartPartition touches the pods that carry
// the id, whatever their index says):
//
//	id := partition.ID(5, 2)                  // "2"
//	pods := ji.Task("worker").Partition(id)   // kept by the job info
//	same := partition.Members(ji.Task("worker").All(), id) // by a walk
package partition
