package plugins

import "errors"

// KeySource hands the ssh plugin a key pair for a job's Secret: the private
// key (written as id_rsa) and the public key in authorized_keys form
// (written as id_rsa.pub and authorized_keys). This library never generates
// keys; a controller injects a source, e.g. one backed by crypto/rsa and
// golang.org/x/crypto/ssh, through WithSSHKeys.
type KeySource interface {
	KeyPair() (private, public []byte, err error)
}

// KeySourceFunc adapts a function to KeySource.
type KeySourceFunc func() (private, public []byte, err error)

// KeyPair calls f.
func (f KeySourceFunc) KeyPair() (private, public []byte, err error) { return f() }

// FixedKeySource returns the same pair every time. It is meant for tests and
// for deployments that distribute one pair out of band.
type FixedKeySource struct {
	Private []byte
	Public  []byte
}

// KeyPair returns copies of the fixed pair; an empty private key is an
// error.
func (s FixedKeySource) KeyPair() (private, public []byte, err error) {
	if len(s.Private) == 0 {
		return nil, nil, errors.New("fixed key source: empty private key")
	}
	return append([]byte(nil), s.Private...), append([]byte(nil), s.Public...), nil
}

// Test key material: deterministic placeholder bytes shaped like an RSA key
// pair. They are not a usable key.
const (
	TestPrivateKey = "-----BEGIN RSA PRIVATE KEY-----\nVkNKT0ItVEVTVC1LRVktTk9ULUEtUkVBTC1LRVk=\n-----END RSA PRIVATE KEY-----\n"
	TestPublicKey  = "ssh-rsa VkNKT0ItVEVTVC1LRVktTk9ULUEtUkVBTC1LRVk= vcjob-test\n"
)

// TestKeySource is a FixedKeySource holding TestPrivateKey and
// TestPublicKey, for tests.
func TestKeySource() FixedKeySource {
	return FixedKeySource{Private: []byte(TestPrivateKey), Public: []byte(TestPublicKey)}
}
