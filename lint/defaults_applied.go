package lint

import (
	"fmt"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/vcjob/vcjob"
)

// DefaultsApplied lists what SetDefaults changed from given to defaulted,
// one line per field as "path: old -> new" (and "spec.plugins: + name" per
// plugin added), in the order of the fields: the webhook's defaults as a
// reader wants to see them.
func DefaultsApplied(given, defaulted *vcjob.Job) []string {
	d := defaulted
	var out []string
	add := func(p *field.Path, old, new string) {
		if old != new {
			out = append(out, fmt.Sprintf("%s: %s -> %s", p, old, new))
		}
	}
	spec := field.NewPath("spec")
	add(spec.Child("queue"), quoted(given.Spec.Queue), quoted(d.Spec.Queue))
	add(spec.Child("schedulerName"), quoted(given.Spec.SchedulerName), quoted(d.Spec.SchedulerName))
	add(spec.Child("maxRetry"), strconv.Itoa(int(given.Spec.MaxRetry)), strconv.Itoa(int(d.Spec.MaxRetry)))
	add(spec.Child("minAvailable"), strconv.Itoa(int(given.Spec.MinAvailable)), strconv.Itoa(int(d.Spec.MinAvailable)))
	if given.Spec.NetworkTopology != nil {
		add(spec.Child("networkTopology", "mode"), quoted(string(given.Spec.NetworkTopology.Mode)), quoted(string(d.Spec.NetworkTopology.Mode)))
	}
	for i := range given.Spec.Tasks {
		g, dt := &given.Spec.Tasks[i], &d.Spec.Tasks[i]
		tp := spec.Child("tasks").Index(i)
		add(tp.Child("name"), quoted(g.Name), quoted(dt.Name))
		add(tp.Child("minAvailable"), optionalInt(g.MinAvailable), optionalInt(dt.MinAvailable))
		add(tp.Child("maxRetry"), strconv.Itoa(int(g.MaxRetry)), strconv.Itoa(int(dt.MaxRetry)))
		add(tp.Child("template", "spec", "dnsPolicy"), quoted(string(g.Template.Spec.DNSPolicy)), quoted(string(dt.Template.Spec.DNSPolicy)))
		if pp := g.PartitionPolicy; pp != nil && pp.NetworkTopology != nil {
			add(tp.Child("partitionPolicy", "networkTopology", "mode"), quoted(string(pp.NetworkTopology.Mode)), quoted(string(dt.PartitionPolicy.NetworkTopology.Mode)))
		}
	}
	var added []string
	for name := range d.Spec.Plugins {
		if _, ok := given.Spec.Plugins[name]; !ok {
			added = append(added, name)
		}
	}
	sort.Strings(added)
	for _, name := range added {
		out = append(out, fmt.Sprintf("%s: + %s", spec.Child("plugins"), name))
	}
	return out
}

func quoted(s string) string { return strconv.Quote(s) }

func optionalInt(p *int32) string {
	if p == nil {
		return "unset"
	}
	return strconv.Itoa(int(*p))
}
