package memcluster

import (
	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
)

// RemoveJob removes the job namespace/name outright, with the pods it
// controls and its PodGroup: where a cascading (Foreground) delete ends,
// its dependents gone before it. A pod a finalizer holds is not removed
// but left being deleted (a deletionTimestamp, a Modified change), as an
// API server keeps it until its finalizers are gone. Its plugin objects
// and claims are left.
// With Watch set the removals are recorded for Drain: the pods', the
// PodGroup's, then the job's (a Deleted change with OldJob). It returns
// the removed job, or nil when there was none.
func (c *Cluster) RemoveJob(namespace, name string) *vcjob.Job {
	k := key(namespace, name)
	job := c.jobs[k]
	if job == nil {
		return nil
	}
	for _, p := range c.Pods(namespace, name) {
		if len(p.Finalizers) > 0 {
			if p.DeletionTimestamp == nil {
				t := c.Now
				p.DeletionTimestamp = &t
				c.putPod(p)
			}
			continue
		}
		c.RemovePod(p.Namespace, p.Name)
	}
	for _, pgName := range []string{podgroup.Name(job), podgroup.LegacyName(job)} {
		pk := key(namespace, pgName)
		if old := c.podGroups[pk]; old != nil {
			delete(c.podGroups, pk)
			if c.Watch && old.Phase != "" {
				c.changes = append(c.changes, Change{Type: Deleted, PodGroupNamespace: namespace, PodGroupJob: name, OldPhase: old.Phase})
			}
		}
	}
	delete(c.jobs, k)
	if c.Watch {
		c.changes = append(c.changes, Change{Type: Deleted, OldJob: job.DeepCopy()})
	}
	return job.DeepCopy()
}
