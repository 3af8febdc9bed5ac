package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/styrmin/styrmin"
)

// KeySize is the length of a key in bytes (AES-256).
const KeySize = 32

// keyIDSize is the length of a key id in bytes.
const keyIDSize = 4

// KeyID names a key without revealing it: the start of an HMAC of a fixed
// text under the key. Every version-2 sealed value carries its key's id.
type KeyID [keyIDSize]byte

// String is the id in hexadecimal, as logs and errors show it.
func (id KeyID) String() string { return hex.EncodeToString(id[:]) }

// key is one key ready to seal and open.
type key struct {
	id   KeyID
	aead cipher.AEAD
}

// newKey prepares a KeySize-byte key.
func newKey(raw []byte) (key, error) {
	if len(raw) != KeySize {
		return key{}, fmt.Errorf("secrets: the key has %d bytes; it needs %d", len(raw), KeySize)
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return key{}, fmt.Errorf("secrets: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return key{}, fmt.Errorf("secrets: %w", err)
	}
	return key{id: keyIDOf(raw), aead: aead}, nil
}

// keyIDOf derives the id of a key.
func keyIDOf(raw []byte) KeyID {
	mac := hmac.New(sha256.New, raw)
	mac.Write([]byte("styrmin secret key id"))
	return KeyID(mac.Sum(nil)[:keyIDSize])
}

// ParseKey reads a key written as base64 (standard or URL alphabet, padded or
// not) or as 64 hexadecimal digits, as `NewKeyText` writes it.
func ParseKey(text string) ([]byte, error) {
	text = strings.TrimSpace(text)
	if key, err := hex.DecodeString(text); err == nil && len(key) == KeySize {
		return key, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if key, err := enc.DecodeString(text); err == nil && len(key) == KeySize {
			return key, nil
		}
	}
	return nil, styrmin.Errorf(styrmin.EINVALID, "secrets: the key must be %d random bytes written as base64 or hex (make one with `openssl rand -base64 32`)", KeySize)
}

// NewKeyText returns a new random key, written as base64.
func NewKeyText() string {
	key := make([]byte, KeySize)
	rand.Read(key) // never fails (crypto/rand panics instead)
	return base64.StdEncoding.EncodeToString(key)
}

// LoadKey returns the key from text, or else from the file at path; it fails
// when both or neither are given.
func LoadKey(text, path string) ([]byte, error) {
	switch {
	case text != "" && path != "":
		return nil, styrmin.Errorf(styrmin.EINVALID, "secrets: give the key once: STYRMIN_SECRET_KEY or --secret-key-file, not both")
	case text != "":
		return ParseKey(text)
	case path != "":
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("secrets: read the key file: %w", err)
		}
		return ParseKey(string(data))
	}
	return nil, styrmin.Errorf(styrmin.EINVALID, "secrets: no key: set STYRMIN_SECRET_KEY or --secret-key-file to 32 random bytes as base64 (`openssl rand -base64 32`); secret parameters are encrypted with it")
}

// LoadPreviousKeys returns the keys that were current before, from text or
// else from the file at path, either holding keys separated by commas or
// white space; none when neither is given.
func LoadPreviousKeys(text, path string) ([][]byte, error) {
	switch {
	case text != "" && path != "":
		return nil, styrmin.Errorf(styrmin.EINVALID, "secrets: give the previous keys once: STYRMIN_PREVIOUS_SECRET_KEYS or --previous-secret-key-file, not both")
	case path != "":
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("secrets: read the previous keys' file: %w", err)
		}
		text = string(data)
	}
	var keys [][]byte
	for i, field := range strings.FieldsFunc(text, isKeySeparator) {
		key, err := ParseKey(field)
		if err != nil {
			return nil, fmt.Errorf("previous key %d: %w", i+1, err)
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// isKeySeparator tells whether r separates keys in a list of keys.
func isKeySeparator(r rune) bool {
	return r == ',' || r == ' ' || r == '\n' || r == '\t' || r == '\r'
}
