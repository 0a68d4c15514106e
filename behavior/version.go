package behavior

import (
	"fmt"
	"slices"
	"strings"
)

// Version names the Volcano whose behaviour a job is decided under: a
// release tag, or the master commit vcjob's master vectors were recorded
// at. The zero Version is DefaultVersion.
type Version struct {
	tag string // "" for DefaultVersion
}

// The versions vcjob reproduces, oldest first. Each upstream change of the
// registry names the ones that contain it (Entry.Tags).
var versions = [...]versionInfo{
	{tag: "v1.12.0"}, {tag: "v1.12.1"}, {tag: "v1.12.2"}, {tag: "v1.12.3"}, {tag: "v1.12.4", recorded: true},
	{tag: "v1.13.0"}, {tag: "v1.13.1"}, {tag: "v1.13.2"}, {tag: "v1.13.3", recorded: true},
	{tag: "v1.14.0"}, {tag: "v1.14.1"}, {tag: "v1.14.2"}, {tag: "v1.14.3"}, {tag: "v1.14.4", recorded: true},
	{tag: "v1.15.0"}, {tag: "v1.15.1", recorded: true},
	{tag: "v1.16.0-alpha.0"}, {tag: "v1.16.0-alpha.1"},
	{tag: Master, recorded: true},
}

type versionInfo struct {
	tag string
	// recorded: vectors were recorded from this version's code; the
	// behaviour of the others is derived from the registry's tags.
	recorded bool
}

// Master is the name of the master commit the master vectors were
// recorded at (ed72c7c, 2026-08-20): for the job, CronJob and garbage
// collector paths the same as v1.16.0-alpha.1 but for the changes the
// registry says it alone has.
const Master = "master"

// MasterCommit is the commit Master stands for.
const MasterCommit = "ed72c7c815a9fd547a787134676f73d42e9d049c"

// DefaultVersion is the version the zero Set and the zero Version decide
// as: the newest release.
const DefaultVersion = "v1.15.1"

// ParseVersion reads a version: a tag as Volcano writes it ("v1.14.4"; the
// "v" may be left out), "master" or a prefix of MasterCommit of at least
// seven characters, "latest" or "" for DefaultVersion.
func ParseVersion(s string) (Version, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "latest" || s == DefaultVersion:
		return Version{}, nil
	case len(s) >= 7 && strings.HasPrefix(MasterCommit, s):
		return Version{tag: Master}, nil
	}
	if !strings.HasPrefix(s, "v") && s != Master {
		s = "v" + s
	}
	for _, v := range versions {
		if v.tag == s {
			return Version{tag: s}, nil
		}
	}
	return Version{}, fmt.Errorf("behavior: Volcano %q is not a version vcjob reproduces (want one of %s)", s, strings.Join(VersionNames(), ", "))
}

// MustVersion is ParseVersion for a version known to parse; it panics
// otherwise. For tests and constants.
func MustVersion(s string) Version {
	v, err := ParseVersion(s)
	if err != nil {
		panic(err)
	}
	return v
}

// VersionNames lists the versions ParseVersion reads, oldest first.
func VersionNames() []string {
	out := make([]string, len(versions))
	for i, v := range versions {
		out[i] = v.tag
	}
	return out
}

// String is the version's tag ("master" for the master commit).
func (v Version) String() string {
	if v.tag == "" {
		return DefaultVersion
	}
	return v.tag
}

// Recorded reports whether vcjob's vectors were recorded from this
// version's code. Another version's behaviour is derived from the tags of
// the registry's upstream changes: Note says so.
func (v Version) Recorded() bool {
	return versions[v.index()].recorded
}

// Note is "" for a recorded version, else a sentence saying the behaviour
// is derived.
func (v Version) Note() string {
	if v.Recorded() {
		return ""
	}
	return fmt.Sprintf("Volcano %s was not recorded: its behaviour is derived from the releases that contain each upstream change", v)
}

// Before reports whether v is older than w (master is the newest).
func (v Version) Before(w Version) bool { return v.index() < w.index() }

func (v Version) index() int {
	tag := v.String()
	for i, x := range versions {
		if x.tag == tag {
			return i
		}
	}
	return slices.IndexFunc(versions[:], func(x versionInfo) bool { return x.tag == DefaultVersion })
}

// Has reports whether version v contains the upstream change id.
func (v Version) Has(id ID) bool {
	return slices.Contains(id.Entry().Tags, v.String())
}
