package plugins

import (
	"errors"
	"flag"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/vcjob/vcjob"
)

func TestRegistryNamesAreTheBuiltins(t *testing.T) {
	want := vcjob.BuiltinPluginNames()
	sort.Strings(want)
	assert.Equal(t, want, NewRegistry().Names())
}

func TestBuildInSortedOrder(t *testing.T) {
	job := newJob("j", map[string][]string{
		"svc": {"--disable-network-policy"}, "env": nil, "ssh": {}, "mpi": {"--port=2022"},
		"tensorflow": nil, "pytorch": nil, "ray": nil, "hcclrank": nil,
	}, task("master", 1, "c"), task("worker", 1, "c"), task("head", 1, "head"))
	ps, err := NewRegistry(WithSSHKeys(TestKeySource())).Build(job)
	require.NoError(t, err)
	var names []string
	for _, p := range ps {
		names = append(names, p.Name())
	}
	assert.Equal(t, []string{"env", "hcclrank", "mpi", "pytorch", "ray", "ssh", "svc", "tensorflow"}, names)

	// The arguments reached the plugins.
	pod := podFor(job, "worker", 0)
	require.NoError(t, ps[2].OnPodCreate(pod, job))
	assert.Equal(t, []corev1.ContainerPort{{Name: "mpijob-port", ContainerPort: 2022}}, pod.Spec.Containers[0].Ports)
	objs, err := ps[6].OnJobAdd(job)
	require.NoError(t, err)
	assert.Len(t, objs.Apply, 2, "--disable-network-policy: ConfigMap and Service only")
}

func TestBuildDefaultedJob(t *testing.T) {
	job := newJob("j", map[string][]string{"mpi": nil}, task("master", 1, "c"), task("worker", 2, "c"))
	vcjob.SetDefaults(job)
	ps, err := NewRegistry(WithSSHKeys(TestKeySource())).Build(job)
	require.NoError(t, err)
	require.Len(t, ps, 3)
	assert.Equal(t, []string{"mpi", "ssh", "svc"}, []string{ps[0].Name(), ps[1].Name(), ps[2].Name()})

	none, err := NewRegistry().Build(newJob("k", nil, task("a", 1, "c")))
	require.NoError(t, err)
	assert.Empty(t, none)
}

func TestBuildErrors(t *testing.T) {
	cases := []struct {
		name    string
		plugins map[string][]string
		want    []string
	}{
		{"unknown plugin", map[string][]string{"env": nil, "horovod": nil}, []string{`unknown plugin "horovod"`}},
		{"bad flag", map[string][]string{"svc": {"--no-such-flag"}}, []string{`plugin "svc"`, `argument "--no-such-flag"`, "not defined"}},
		{"bad value", map[string][]string{"ray": {"--port=http"}}, []string{`plugin "ray"`, `argument "--port=http"`, "invalid value"}},
		{"out of range", map[string][]string{"mpi": {"--port=0"}}, []string{`plugin "mpi"`, `argument "--port=0"`}},
		{"missing value", map[string][]string{"pytorch": {"--port"}}, []string{`plugin "pytorch"`, `argument "--port"`}},
		{"stray word", map[string][]string{"tensorflow": {"--ps=p", "worker"}}, []string{`plugin "tensorflow"`, `argument "worker"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewRegistry(WithSSHKeys(TestKeySource()), WithStrictArguments()).Build(newJob("j", tc.plugins, task("a", 1, "c")))
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	var argErr *ArgError
	_, err := NewRegistry(WithStrictArguments()).Build(newJob("j", map[string][]string{"svc": {"--x"}}))
	require.ErrorAs(t, err, &argErr)
	assert.Equal(t, "svc", argErr.Plugin)
	assert.Equal(t, "--x", argErr.Arg)
	assert.Equal(t, "flag provided but not defined: -x", argErr.Reason)
	require.Error(t, argErr.Err, "the flag package's error is kept")

	_, err = NewRegistry(WithStrictArguments()).Build(newJob("j", map[string][]string{"svc": {"--help"}}))
	assert.ErrorIs(t, err, flag.ErrHelp, "the flag package's error is wrapped")

	_, err = NewRegistry().Build(nil)
	assert.Error(t, err)
}

type namedPlugin struct{ envPlugin }

func (namedPlugin) Name() string { return "custom" }

func TestRegister(t *testing.T) {
	r := NewRegistry()
	var got []string
	require.NoError(t, r.Register("custom", func(args []string) (Plugin, error) {
		got = args
		return namedPlugin{}, nil
	}))
	assert.Contains(t, r.Names(), "custom")
	assert.NotContains(t, NewRegistry().Names(), "custom", "registries share nothing")

	ps, err := r.Build(newJob("j", map[string][]string{"custom": {"--a=1"}}))
	require.NoError(t, err)
	require.Len(t, ps, 1)
	assert.Equal(t, "custom", ps[0].Name())
	assert.Equal(t, []string{"--a=1"}, got)

	assert.Error(t, r.Register("", NewEnv))
	assert.Error(t, r.Register("x", nil))

	// A builder's own error, a nil plugin and a plugin of another name are
	// reported with the plugin's name.
	require.NoError(t, r.Register("broken", func([]string) (Plugin, error) { return nil, errors.New("boom") }))
	_, err = r.Build(newJob("j", map[string][]string{"broken": nil}))
	assert.ErrorContains(t, err, "boom")
	require.NoError(t, r.Register("nil", func([]string) (Plugin, error) { return nil, nil }))
	_, err = r.Build(newJob("j", map[string][]string{"nil": nil}))
	assert.ErrorContains(t, err, `plugin "nil": builder returned no plugin`)
	require.NoError(t, r.Register("alias", func([]string) (Plugin, error) { return namedPlugin{}, nil }))
	_, err = r.Build(newJob("j", map[string][]string{"alias": nil}))
	assert.ErrorContains(t, err, `plugin "alias": builder returned plugin "custom"`)

	// Replacing a built-in.
	require.NoError(t, r.Register("env", func([]string) (Plugin, error) { return envPlugin{}, nil }))
	_, err = r.Build(newJob("j", map[string][]string{"env": {"--anything"}}))
	assert.NoError(t, err, "the replacement ignores its arguments")

	var zero Registry
	require.NoError(t, zero.Register("env", NewEnv))
	assert.Equal(t, []string{"env"}, zero.Names())
}
