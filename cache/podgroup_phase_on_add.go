package cache

import (
	"github.com/vcjob/vcjob/podgroup"
	"github.com/vcjob/vcjob/request"
)

// podGroupPhaseOnAdd is the request of a PodGroup the feed first shows
// already in phase, after the informer's first list, under
// behavior.PodGroupPhaseOnAdd: that of the change from no phase it missed
// (OnPodGroupUpdate). A relist after a lost watch shows a PodGroup as new;
// Volcano, with no add handler for PodGroups, raises nothing, and a job
// waiting for its PodGroup's move to Inqueue waits for ever.
func (c *Cache) podGroupPhaseOnAdd(namespace, job string, phase podgroup.Phase) (request.Request, bool) {
	return c.OnPodGroupUpdate(namespace, job, "", phase)
}
