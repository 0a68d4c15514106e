package applier

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/pem"
	"math/big"
)

// RSAKeys is the ssh plugin's key source: a fresh RSA 2048 key pair, the
// private key as PKCS#1 PEM (id_rsa) and the public key in authorized_keys
// form.
type RSAKeys struct{}

// KeyPair implements plugins.KeySource.
func (RSAKeys) KeyPair() (private, public []byte, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	private = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return private, AuthorizedKey(&key.PublicKey), nil
}

// AuthorizedKey renders an RSA public key as an authorized_keys line
// (RFC 4253 §6.6 wire format, base64).
func AuthorizedKey(pub *rsa.PublicKey) []byte {
	var wire []byte
	putString := func(b []byte) {
		wire = binary.BigEndian.AppendUint32(wire, uint32(len(b)))
		wire = append(wire, b...)
	}
	mpint := func(n *big.Int) []byte {
		b := n.Bytes()
		if len(b) > 0 && b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	putString([]byte("ssh-rsa"))
	putString(mpint(big.NewInt(int64(pub.E))))
	putString(mpint(pub.N))
	return []byte("ssh-rsa " + base64.StdEncoding.EncodeToString(wire) + "\n")
}
