package scenario

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
)

// summary is the job's state at the end of a run: the status as the
// controller last wrote it, then the pods as they are.
func (s *sim) summary() string {
	if s.gc.deleted != nil {
		return s.deletedSummary()
	}
	if s.ext.deletedAt > 0 {
		return s.userDeletedSummary()
	}
	job := s.cluster.Job(s.ns, s.job)
	st := job.Status
	var pods []string
	var succeeded, failed int32
	for _, p := range s.cluster.Pods(s.ns, s.job) {
		state := string(p.Status.Phase)
		if p.DeletionTimestamp != nil {
			state += ",terminating"
		} else if p.Status.Phase == corev1.PodSucceeded {
			succeeded++
		} else if p.Status.Phase == corev1.PodFailed {
			failed++
		}
		pods = append(pods, strings.TrimPrefix(p.Name, s.job+"-")+"="+state)
	}
	sort.Strings(pods)
	if len(pods) > maxListedPods {
		pods = countPods(pods)
	}
	pg := "none"
	if g := s.cluster.PodGroup(job); g.Exists {
		pg = string(g.Phase)
		if pg == "" {
			pg = "(no phase)"
		}
	}
	counts := fmt.Sprintf("status counts pending %d running %d succeeded %d failed %d terminating %d", st.Pending, st.Running, st.Succeeded, st.Failed, st.Terminating)
	if st.Succeeded != succeeded || st.Failed != failed {
		// A kill counts only the pods it could not delete (Volcano's kill
		// zeroes the rest).
		counts += " (as last written: a kill leaves out the Succeeded and Failed pods it keeps)"
	}
	delayed := fmt.Sprint(s.step.Delays.Len())
	if len(s.retries) > 0 {
		delayed += fmt.Sprintf(", requeued %d", len(s.retries))
	}
	return fmt.Sprintf("phase %s, retryCount %d, version %d; %s; podgroup %s; delayed %s; pods: %s%s",
		orNone(st.State.Phase), st.RetryCount, st.Version, counts, pg, delayed, strings.Join(pods, " "), s.gcSummary(job))
}

// maxListedPods is how many pods the summary names one by one; beyond it,
// it counts them by state.
const maxListedPods = 20

// countPods turns "worker-0=Running" entries into "Running=9999" counts.
func countPods(pods []string) []string {
	n := map[string]int{}
	for _, p := range pods {
		_, state, _ := strings.Cut(p, "=")
		n[state]++
	}
	var out []string
	for state, c := range n {
		out = append(out, fmt.Sprintf("%d %s", c, state))
	}
	sort.Strings(out)
	return append([]string{fmt.Sprintf("%d,", len(pods))}, out...)
}

func orNone(p vcjob.JobPhase) string {
	if p == "" {
		return "(none)"
	}
	return string(p)
}

// userDeletedSummary is the summary once the job was deleted.
func (s *sim) userDeletedSummary() string {
	return fmt.Sprintf("job deleted at line %d: the garbage collector removed its pods and PodGroup; delayed %d", s.ext.deletedAt, s.step.Delays.Len())
}
