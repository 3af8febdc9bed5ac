package oci

import (
	"crypto"
	"crypto/elliptic"
	"fmt"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"

	styrmin "github.com/styrmin/styrmin"
)

// KeyPair is a cosign key pair in cosign's files: an ECDSA P-256 key.
type KeyPair struct {
	// Private is cosign.key: the key encrypted under a password
	// (ENCRYPTED SIGSTORE PRIVATE KEY).
	Private []byte
	// Public is cosign.pub (PUBLIC KEY).
	Public []byte
}

// GenerateKeyPair makes a key pair as `cosign generate-key-pair` does, the
// private key encrypted under password (which may be empty, as cosign allows).
func GenerateKeyPair(password []byte) (*KeyPair, error) {
	priv, pub, err := cryptoutils.GeneratePEMEncodedECDSAKeyPair(elliptic.P256(), cryptoutils.StaticPasswordFunc(password))
	if err != nil {
		return nil, fmt.Errorf("oci: generate key pair: %w", err)
	}
	return &KeyPair{Private: priv, Public: pub}, nil
}

// LoadSigner reads a cosign private key (cosign.key) with its password.
func LoadSigner(privatePEM, password []byte) (signature.Signer, error) {
	key, err := cryptoutils.UnmarshalPEMToPrivateKey(privatePEM, cryptoutils.StaticPasswordFunc(password))
	if err != nil {
		return nil, &styrmin.Error{Code: styrmin.EINVALID, Err: err,
			Message: "The private key cannot be read: it is not a cosign key (cosign.key), or the password is wrong."}
	}
	s, err := signature.LoadSigner(key, crypto.SHA256)
	if err != nil {
		return nil, &styrmin.Error{Code: styrmin.EINVALID, Err: err, Message: "The private key is of a kind that cannot sign: use an ECDSA, RSA or Ed25519 key."}
	}
	return s, nil
}

// LoadVerifier reads a public key in PEM (cosign.pub).
func LoadVerifier(publicPEM []byte) (signature.Verifier, error) {
	key, err := cryptoutils.UnmarshalPEMToPublicKey(publicPEM)
	if err != nil {
		return nil, &styrmin.Error{Code: styrmin.EINVALID, Err: err, Message: "The public key is not a PEM public key such as cosign.pub."}
	}
	v, err := signature.LoadVerifier(key, crypto.SHA256)
	if err != nil {
		return nil, &styrmin.Error{Code: styrmin.EINVALID, Err: err, Message: "The public key is of a kind that cannot verify: use an ECDSA, RSA or Ed25519 key."}
	}
	return v, nil
}
