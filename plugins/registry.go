package plugins

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/vcjob/vcjob"
)

// Builder makes a plugin from the arguments a job gives it in
// spec.plugins. A bad argument is an error that names it.
type Builder func(args []string) (Plugin, error)

// Registry maps plugin names to builders. A registry is a plain value: it
// holds no package-level state, and two registries never share builders.
// It is not safe to Register while another goroutine Builds.
type Registry struct {
	builders map[string]Builder
}

// Option configures NewRegistry.
type Option func(*registryOptions)

type registryOptions struct {
	keys       KeySource
	strict     bool
	labels     bool
	replaceEnv bool
}

// mode is a fresh mode for one built-in plugin.
func (o *registryOptions) mode() *mode {
	return &mode{strict: o.strict, labels: o.labels, replaceEnv: o.replaceEnv}
}

// WithSSHKeys sets the source of the ssh plugin's key pairs.
func WithSSHKeys(src KeySource) Option {
	return func(o *registryOptions) { o.keys = src }
}

// WithStrictArguments makes a built-in plugin's bad argument (a flag it
// does not know, a value it cannot parse or finds out of range) an error
// of Build, so the job's syncs fail until it is fixed. Volcano logs such
// an argument and goes on with the flags read before it: the default,
// where BuildAll reports warnings. vcjob's own choice, on request.
func WithStrictArguments() Option {
	return func(o *registryOptions) { o.strict = true }
}

// WithObjectLabels labels the plugins' Services, ConfigMaps, Secrets and
// NetworkPolicies with volcano.sh/job-name and volcano.sh/job-namespace,
// so they can be listed by job. Volcano writes no labels on them: the
// default. vcjob's own choice, on request.
func WithObjectLabels() Option {
	return func(o *registryOptions) { o.labels = true }
}

// WithReplacedEnv makes the plugins replace the value of an environment
// variable the template already sets (VC_TASK_INDEX, RANK, ...). Volcano
// appends a second entry, and the container sees the last one: the
// default. vcjob's own choice, on request.
func WithReplacedEnv() Option {
	return func(o *registryOptions) { o.replaceEnv = true }
}

// NewRegistry returns a registry holding the eight built-in plugins. The
// ssh plugin takes its keys from the WithSSHKeys source; without one it
// only works for jobs that pass --ssh-private-key. With no other option
// the plugins do what Volcano's do.
func NewRegistry(opts ...Option) *Registry {
	o := &registryOptions{}
	for _, opt := range opts {
		opt(o)
	}
	keys := o.keys
	return &Registry{builders: map[string]Builder{
		vcjob.PluginEnv:        func(args []string) (Plugin, error) { return newEnv(args, o.mode()) },
		vcjob.PluginSvc:        func(args []string) (Plugin, error) { return newSvc(args, o.mode()) },
		vcjob.PluginSSH:        func(args []string) (Plugin, error) { return newSSH(keys, args, o.mode()) },
		vcjob.PluginPytorch:    func(args []string) (Plugin, error) { return newPytorch(args, o.mode()) },
		vcjob.PluginTensorflow: func(args []string) (Plugin, error) { return newTensorflow(args, o.mode()) },
		vcjob.PluginMPI:        func(args []string) (Plugin, error) { return newMPI(args, o.mode()) },
		vcjob.PluginRay:        func(args []string) (Plugin, error) { return newRay(args, o.mode()) },
		vcjob.PluginHCCLRank:   func(args []string) (Plugin, error) { return newHCCLRank(args, o.mode()) },
	}}
}

func (r *Registry) Register(name string, b Builder) error {
	if name == "" {
		return errors.New("plugins: register: empty plugin name")
	}
	if b == nil {
		return fmt.Errorf("plugins: register %q: nil builder", name)
	}
	if r.builders == nil {
		r.builders = map[string]Builder{}
	}
	r.builders[name] = b
	return nil
}

// Names lists the registered plugin names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.builders))
	for n := range r.builders {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Builder returns the builder registered for name.
func (r *Registry) Builder(name string) (Builder, bool) {
	b, ok := r.builders[name]
	return b, ok
}

// Build makes the plugins job.spec.plugins names, in sorted name order.
// An unknown name, a bad argument, or a builder returning a nil plugin or
// a plugin of another name is an error naming the plugin.
func (r *Registry) Build(job *vcjob.Job) ([]Plugin, error) {
	ps, _, err := r.BuildAll(job)
	return ps, err
}

// BuildAll is Build that also returns the warnings of the plugins that
// went past bad arguments (Warner), in the plugins' order.
func (r *Registry) BuildAll(job *vcjob.Job) ([]Plugin, []Warning, error) {
	if job == nil {
		return nil, nil, errors.New("plugins: build: nil job")
	}
	names := make([]string, 0, len(job.Spec.Plugins))
	for n := range job.Spec.Plugins {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]Plugin, 0, len(names))
	var warnings []Warning
	for _, n := range names {
		b, ok := r.builders[n]
		if !ok {
			return nil, nil, fmt.Errorf("plugins: unknown plugin %q (known: %s)", n, strings.Join(r.Names(), ", "))
		}
		p, err := b(job.Spec.Plugins[n])
		if err != nil {
			return nil, nil, fmt.Errorf("plugins: %w", err)
		}
		if p == nil {
			return nil, nil, fmt.Errorf("plugins: plugin %q: builder returned no plugin", n)
		}
		if p.Name() != n {
			return nil, nil, fmt.Errorf("plugins: plugin %q: builder returned plugin %q", n, p.Name())
		}
		if w, ok := p.(Warner); ok {
			warnings = append(warnings, w.Warnings()...)
		}
		out = append(out, p)
	}
	return out, warnings, nil
}

// ArgError is a plugin argument that could not be used.
type ArgError struct {
	Plugin string
	Arg    string // the offending argument as given ("" when none was)
	Reason string
	// Err is the flag package's error behind Reason, when there is one.
	Err error
}

// Unwrap gives the flag package's error (flag.ErrHelp, say).
func (e *ArgError) Unwrap() error { return e.Err }

func (e *ArgError) Error() string {
	if e.Arg == "" {
		return fmt.Sprintf("plugin %q: %s", e.Plugin, e.Reason)
	}
	return fmt.Sprintf("plugin %q: argument %q: %s", e.Plugin, e.Arg, e.Reason)
}

// newFlagSet is a flag set that parses like Volcano's plugins (Go's flag
// package, one set per plugin, errors returned) but prints nothing.
func newFlagSet(plugin string) *flag.FlagSet {
	fs := flag.NewFlagSet(plugin, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses args into fs. Unlike Volcano, which logs a parse error
// and goes on with whatever was set, a parse error is returned, and so are
// arguments left over after the flags (Volcano ignores them).
func parseArgs(plugin string, fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		consumed := len(args) - len(fs.Args())
		arg := ""
		for i := min(consumed, len(args)) - 1; i >= 0; i-- {
			if strings.HasPrefix(args[i], "-") {
				arg = args[i]
				break
			}
		}
		return &ArgError{Plugin: plugin, Arg: arg, Reason: err.Error(), Err: err}
	}
	if rest := fs.Args(); len(rest) > 0 {
		return &ArgError{Plugin: plugin, Arg: rest[0], Reason: "not a flag; arguments are --name=value flags"}
	}
	return nil
}

// argFor is how a flag was given, for error messages: the argument that
// set it, or "--name" when it was not given.
func argFor(fs *flag.FlagSet, args []string, name string) string {
	for i := len(args) - 1; i >= 0; i-- {
		a := strings.TrimLeft(args[i], "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return args[i]
		}
	}
	return "--" + name
}

// checkPort rejects a port number outside 1..65535.
func checkPort(plugin string, fs *flag.FlagSet, args []string, name string, v int) error {
	if v < 1 || v > 65535 {
		return &ArgError{Plugin: plugin, Arg: argFor(fs, args, name), Reason: fmt.Sprintf("port %d is not in 1..65535", v)}
	}
	return nil
}

// checkNonEmpty rejects an empty string flag.
func checkNonEmpty(plugin string, fs *flag.FlagSet, args []string, name, v string) error {
	if v == "" {
		return &ArgError{Plugin: plugin, Arg: argFor(fs, args, name), Reason: "must not be empty"}
	}
	return nil
}

// masterWorker are the arguments the mpi and pytorch plugins share: the
// names of the master and worker tasks and the port they open.
type masterWorker struct {
	master string
	worker string
	port   int
}

// flags registers --master, --worker and --port (defaulting to port).
func (m *masterWorker) flags(fs *flag.FlagSet, port int, portUsage string) {
	fs.StringVar(&m.master, "master", "master", "name of the master task")
	fs.StringVar(&m.worker, "worker", "worker", "name of the worker task")
	fs.IntVar(&m.port, "port", port, portUsage)
}

// check refuses an empty task name or a port out of range.
func (m *masterWorker) check(plugin string, fs *flag.FlagSet, args []string) error {
	if err := checkNonEmpty(plugin, fs, args, "master", m.master); err != nil {
		return err
	}
	if err := checkNonEmpty(plugin, fs, args, "worker", m.worker); err != nil {
		return err
	}
	return checkPort(plugin, fs, args, "port", m.port)
}
