package plugins

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/vcjob/vcjob"
)

const mpiSSHConfig = "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n" +
	"Host mpi-job-mpimaster-0\n  HostName mpi-job-mpimaster-0.mpi-job\n  Port 22\n" +
	"Host mpi-job-mpiworker-0\n  HostName mpi-job-mpiworker-0.mpi-job\n  Port 22\n" +
	"Host mpi-job-mpiworker-1\n  HostName mpi-job-mpiworker-1.mpi-job\n  Port 22\n"

func sshVolume(name string, mode int32) []corev1.Volume {
	return []corev1.Volume{{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName: name,
		Items: []corev1.KeyToPath{
			{Key: "id_rsa", Path: ".ssh/id_rsa"},
			{Key: "id_rsa.pub", Path: ".ssh/id_rsa.pub"},
			{Key: "authorized_keys", Path: ".ssh/authorized_keys"},
			{Key: "config", Path: ".ssh/config"},
		},
		DefaultMode: &mode,
	}}}}
}

func TestSSHPodCreate(t *testing.T) {
	cases := []struct {
		args []string
		path string
		mode int32
	}{
		{nil, "/root/.ssh", 0o600},
		// Elsewhere Volcano mounts the keys readable by all (a fact of a
		// recorded vector).
		{[]string{"--ssh-key-file-path=/home/user/.ssh"}, "/home/user/.ssh", 0o644},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			job := mpiJob()
			p := mustBuild(t, "ssh", tc.args...)
			pod := created(t, p, job, "mpimaster", 0)
			assert.Equal(t, sshVolume("mpi-job-ssh", tc.mode), pod.Spec.Volumes)
			want := []corev1.VolumeMount{{Name: "mpi-job-ssh", MountPath: tc.path, SubPath: ".ssh"}}
			for _, c := range append(pod.Spec.InitContainers, pod.Spec.Containers...) {
				assert.Equal(t, want, c.VolumeMounts, c.Name)
			}
		})
	}
}

func wantSSHSecret(job *vcjob.Job, private, public, config string) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "mpi-job-ssh", Labels: jobLabels(job),
			OwnerReferences: ownerRef(job)},
		Data: map[string][]byte{
			"id_rsa":          []byte(private),
			"id_rsa.pub":      []byte(public),
			"authorized_keys": []byte(public),
			"config":          []byte(config),
		},
	}
}

func TestSSHJobHooksWithKeySource(t *testing.T) {
	job := mpiJob()
	p := mustBuild(t, "ssh")
	objs, err := p.OnJobAdd(job)
	require.NoError(t, err)
	assert.Equal(t, []runtime.Object{wantSSHSecret(job, TestPrivateKey, TestPublicKey, mpiSSHConfig)}, objs.Apply)
	assert.Equal(t, "ssh", job.Status.ControlledResources["plugin-ssh"])

	again, err := p.OnJobAdd(job)
	require.NoError(t, err)
	assert.True(t, again.Empty())

	upd, err := p.OnJobUpdate(job)
	require.NoError(t, err)
	assert.True(t, upd.Empty(), "Volcano does not rewrite the ssh Secret on update")

	del, err := p.OnJobDelete(job)
	require.NoError(t, err)
	assert.Equal(t, []ObjectRef{{APIVersion: "v1", Kind: "Secret", Namespace: "ns", Name: "mpi-job-ssh"}}, del.Delete)
	assert.Empty(t, job.Status.ControlledResources)
}

func TestSSHUserKeysAndPort(t *testing.T) {
	job := mpiJob()
	failing := KeySourceFunc(func() ([]byte, []byte, error) { return nil, nil, errors.New("must not be called") })
	p, err := newSSH(failing, []string{"--ssh-private-key=PRIV", "--ssh-public-key=ssh-rsa PUB", "--ssh-port=2222"}, choices())
	require.NoError(t, err)
	objs, err := p.OnJobAdd(job)
	require.NoError(t, err)
	config := "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n" +
		"Host mpi-job-mpimaster-0\n  HostName mpi-job-mpimaster-0.mpi-job\n  Port 2222\n" +
		"Host mpi-job-mpiworker-0\n  HostName mpi-job-mpiworker-0.mpi-job\n  Port 2222\n" +
		"Host mpi-job-mpiworker-1\n  HostName mpi-job-mpiworker-1.mpi-job\n  Port 2222\n"
	assert.Equal(t, []runtime.Object{wantSSHSecret(job, "PRIV", "ssh-rsa PUB", config)}, objs.Apply)
}

func TestSSHConfigWithTemplateHostname(t *testing.T) {
	job := newJob("j", nil, task("a", 3, "c"))
	job.Spec.Tasks[0].Template.Spec.Hostname = "h"
	job.Spec.Tasks[0].Template.Spec.Subdomain = "s"
	assert.Equal(t, "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\nHost h\n  HostName h.s\n  Port 22\n", SSHConfigFor(job, 22))
}

func TestSSHErrors(t *testing.T) {
	_, err := NewSSH(nil, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no key source")

	_, err = NewRegistry().Build(mpiJob())
	require.Error(t, err)
	assert.Contains(t, err.Error(), `plugin "ssh"`)

	_, err = NewSSH(TestKeySource(), []string{"--ssh-port=70000"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `argument "--ssh-port=70000"`)

	_, err = NewSSH(TestKeySource(), []string{"--ssh-key-file-path="})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `argument "--ssh-key-file-path="`)

	boom := KeySourceFunc(func() ([]byte, []byte, error) { return nil, nil, errors.New("entropy exhausted") })
	p, err := NewSSH(boom, nil)
	require.NoError(t, err)
	job := mpiJob()
	_, err = p.OnJobAdd(job)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "entropy exhausted")
	assert.Empty(t, job.Status.ControlledResources, "a failed add records nothing")

	_, _, err = FixedKeySource{}.KeyPair()
	assert.Error(t, err)
}

func TestFixedKeySourceCopies(t *testing.T) {
	src := TestKeySource()
	priv, pub, err := src.KeyPair()
	require.NoError(t, err)
	priv[0], pub[0] = 'X', 'X'
	priv2, pub2, err := src.KeyPair()
	require.NoError(t, err)
	assert.Equal(t, TestPrivateKey, string(priv2))
	assert.Equal(t, TestPublicKey, string(pub2))
}
