package plugins

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/vcjob/vcjob"
)

// Keys of the ssh plugin's Secret, which are also the file names under the
// mounted directory.
const (
	SSHPrivateKey     = "id_rsa"
	SSHPublicKey      = "id_rsa.pub"
	SSHAuthorizedKeys = "authorized_keys"
	SSHConfig         = "config"
	// SSHDefaultPath is where the keys are mounted unless
	// --ssh-key-file-path says otherwise.
	SSHDefaultPath = "/root/.ssh"
	// sshRelativePath is the directory inside the Secret volume, mounted
	// as a subPath.
	sshRelativePath = ".ssh"
	// SSHDefaultPort is the port the generated ssh config names.
	SSHDefaultPort = 22
)

type sshPlugin struct {
	*mode
	keys       KeySource
	keyPath    string
	privateKey string
	publicKey  string
	port       int
}

// NewSSH builds the ssh plugin with keys as the source of generated key
// pairs. Arguments:
//
//	--ssh-key-file-path  where the keys are mounted, default /root/.ssh
//	--ssh-private-key    a private key to use instead of a generated one
//	--ssh-public-key     its public key
//	--ssh-port           the Port the generated ssh config names, default 22
//
// With neither keys nor --ssh-private-key the plugin cannot be built.
func NewSSH(keys KeySource, args []string) (Plugin, error) {
	return newSSH(keys, args, strictMode())
}

func newSSH(keys KeySource, args []string, m *mode) (Plugin, error) {
	name := vcjob.PluginSSH
	p := &sshPlugin{mode: m, keys: keys}
	fs := newFlagSet(name)
	fs.StringVar(&p.keyPath, "ssh-key-file-path", SSHDefaultPath, "where the ssh keys are mounted")
	fs.StringVar(&p.privateKey, "ssh-private-key", "", "the private key to use")
	fs.StringVar(&p.publicKey, "ssh-public-key", "", "the public key to use")
	fs.IntVar(&p.port, "ssh-port", SSHDefaultPort, "the ssh port the config names")
	if err := m.parse(name, fs, args); err != nil {
		return nil, err
	}
	if err := m.tolerate(checkNonEmpty(name, fs, args, "ssh-key-file-path", p.keyPath)); err != nil {
		return nil, err
	}
	if err := m.tolerate(checkPort(name, fs, args, "ssh-port", p.port)); err != nil {
		return nil, err
	}
	if p.privateKey == "" && keys == nil {
		return nil, &ArgError{Plugin: name, Reason: "no key source configured (plugins.WithSSHKeys) and no --ssh-private-key given"}
	}
	return p, nil
}

func (p *sshPlugin) Name() string { return vcjob.PluginSSH }

// SSHSecretName is the name of the ssh plugin's Secret: "<job>-ssh".
func SSHSecretName(job *vcjob.Job) string { return job.Name + "-" + vcjob.PluginSSH }

// SSHConfigFor is the ssh client config the plugin writes for a job: host
// key checks off, and for every pod a Host entry with its short host name,
// its svc host name and the port.
func SSHConfigFor(job *vcjob.Job, port int) string {
	var b strings.Builder
	b.WriteString("StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n")
	for i := range job.Spec.Tasks {
		ts := &job.Spec.Tasks[i]
		for j := 0; j < int(ts.Replicas); j++ {
			short := ts.Template.Spec.Hostname
			if short == "" {
				short = vcjob.PodName(job.Name, ts.Name, j)
			}
			b.WriteString("Host " + short + "\n")
			b.WriteString("  HostName " + hostName(job, ts, j) + "\n")
			b.WriteString("  Port " + strconv.Itoa(port) + "\n")
			if ts.Template.Spec.Hostname != "" {
				break
			}
		}
	}
	return b.String()
}

// OnPodCreate mounts the Secret's files at the key path (a subPath mount of
// its .ssh directory) in every container and init container: mode 0600 at
// the default path /root/.ssh, 0644 elsewhere, as Volcano mounts them (a
// non-root user's ssh must read keys it does not own).
func (p *sshPlugin) OnPodCreate(pod *corev1.Pod, job *vcjob.Job) error {
	if err := checkPod(p.Name(), pod, job); err != nil {
		return err
	}
	secret := SSHSecretName(job)
	mode := int32(0o600)
	if p.keyPath != SSHDefaultPath {
		mode = 0o644
	}
	items := make([]corev1.KeyToPath, 0, 4)
	for _, k := range []string{SSHPrivateKey, SSHPublicKey, SSHAuthorizedKeys, SSHConfig} {
		items = append(items, corev1.KeyToPath{Key: k, Path: sshRelativePath + "/" + k})
	}
	setVolume(pod, corev1.Volume{Name: secret, VolumeSource: corev1.VolumeSource{
		Secret: &corev1.SecretVolumeSource{SecretName: secret, Items: items, DefaultMode: &mode},
	}})
	eachContainer(pod, true, func(c *corev1.Container) {
		setMount(c, corev1.VolumeMount{Name: secret, MountPath: p.keyPath, SubPath: sshRelativePath})
	})
	return nil
}

// OnJobAdd, unless already recorded, returns the Secret holding the key
// pair (given by argument, or else from the key source), the public key
// again as authorized_keys, and the ssh config.
func (p *sshPlugin) OnJobAdd(job *vcjob.Job) (Objects, error) {
	if err := checkJob(p.Name(), job); err != nil {
		return Objects{}, err
	}
	if recorded(job, p.Name()) {
		return Objects{}, nil
	}
	private, public := []byte(p.privateKey), []byte(p.publicKey)
	if p.privateKey == "" {
		if p.keys == nil {
			return Objects{}, errors.New("plugin \"ssh\": no key source")
		}
		var err error
		private, public, err = p.keys.KeyPair()
		if err != nil {
			return Objects{}, fmt.Errorf("plugin %q: key pair for job %s/%s: %w", p.Name(), job.Namespace, job.Name, err)
		}
	}
	secret := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: p.meta(job, SSHSecretName(job)),
		Data: map[string][]byte{
			SSHPrivateKey:     private,
			SSHPublicKey:      public,
			SSHAuthorizedKeys: append([]byte(nil), public...),
			SSHConfig:         []byte(SSHConfigFor(job, p.port)),
		},
	}
	record(job, p.Name())
	return Objects{Apply: []runtime.Object{secret}}, nil
}

// OnJobUpdate does nothing: Volcano does not rewrite the Secret (subPath
// mounts would not see the change).
func (p *sshPlugin) OnJobUpdate(job *vcjob.Job) (Objects, error) {
	return Objects{}, checkJob(p.Name(), job)
}

// OnJobDelete, when recorded, deletes the Secret.
func (p *sshPlugin) OnJobDelete(job *vcjob.Job) (Objects, error) {
	if err := checkJob(p.Name(), job); err != nil {
		return Objects{}, err
	}
	if !recorded(job, p.Name()) {
		return Objects{}, nil
	}
	unrecord(job, p.Name())
	return Objects{Delete: []ObjectRef{{APIVersion: "v1", Kind: "Secret", Namespace: job.Namespace, Name: SSHSecretName(job)}}}, nil
}
