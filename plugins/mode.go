package plugins

import (
	"errors"
	"flag"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"
)

// Warning is a plugin argument Volcano logs and goes past: a flag it does
// not know, a value it cannot parse, a value vcjob finds out of range.
// Arguments after an unparsable one are not read, as with Volcano.
type Warning struct {
	ArgError
}

// Warner is a plugin that went past bad arguments; Registry.BuildAll
// collects its warnings.
type Warner interface {
	Warnings() []Warning
}

// mode is how a built-in plugin treats its arguments and what it writes
// where vcjob offers a choice of its own (Registry options). The zero
// mode is Volcano's: bad arguments become warnings, environment
// variables are appended, plugin objects carry no labels.
type mode struct {
	strict     bool
	labels     bool
	replaceEnv bool
	warnings   []Warning
}

// strictMode is the standalone constructors' mode: bad arguments are
// errors, objects and pods as Volcano writes them.
func strictMode() *mode { return &mode{strict: true} }

// Warnings implements Warner.
func (m *mode) Warnings() []Warning {
	if m == nil {
		return nil
	}
	return m.warnings
}

// parse parses args into fs: strictly, an error; otherwise, as Volcano's
// plugins do (the flag package, ContinueOnError, the error logged), a
// warning, with the flags parsed before it kept.
func (m *mode) parse(plugin string, fs *flag.FlagSet, args []string) error {
	return m.tolerate(parseArgs(plugin, fs, args))
}

// tolerate turns an argument error into a warning unless the mode is strict.
func (m *mode) tolerate(err error) error {
	var ae *ArgError
	if err == nil || m.strict || !errors.As(err, &ae) {
		return err
	}
	m.warnings = append(m.warnings, Warning{*ae})
	return nil
}

// meta is the metadata of a plugin object: owned by the job, labelled with
// it only on request (Volcano writes no labels).
func (m *mode) meta(job *vcjob.Job, name string) metav1.ObjectMeta {
	om := metav1.ObjectMeta{
		Namespace:       job.Namespace,
		Name:            name,
		OwnerReferences: []metav1.OwnerReference{vcjob.ControllerRef(job)},
	}
	if m != nil && m.labels {
		om.Labels = jobSelector(job)
	}
	return om
}

// setEnv appends v to the container's environment, as Volcano does, even
// when a variable of that name is already there (the last one wins in the
// container); on request it replaces the value instead.
func (m *mode) setEnv(c *corev1.Container, v corev1.EnvVar) {
	if m != nil && m.replaceEnv {
		setEnv(c, v)
		return
	}
	c.Env = append(c.Env, v)
}
