// Package secrets seals the values of secret parameters for storage in
// PostgreSQL with AES-256-GCM, under a key the database never holds.
package secrets

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/styrmin/styrmin/db"
)

// KeySize is the length of a key in bytes (AES-256).
const KeySize = 32

// version prefixes every sealed value, so that the format can change later.
const version byte = 1

// ErrWrongKey means a sealed value does not open with this key: the key is
// not the one it was sealed with, or the value was altered.
var ErrWrongKey = errors.New("secrets: the value does not open with this key (a different STYRMIN_SECRET_KEY, or altered data)")

// Box seals and opens values under one key.
type Box struct {
	aead cipher.AEAD
}

// NewBox returns a Box for a KeySize-byte key.
func NewBox(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secrets: the key has %d bytes; it needs %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	return &Box{aead: aead}, nil
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
	return nil, fmt.Errorf("secrets: the key must be %d random bytes written as base64 or hex (make one with `openssl rand -base64 32`)", KeySize)
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
		return nil, errors.New("secrets: give the key once: STYRMIN_SECRET_KEY or --secret-key-file, not both")
	case text != "":
		return ParseKey(text)
	case path != "":
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("secrets: read the key file: %w", err)
		}
		return ParseKey(string(data))
	}
	return nil, errors.New("secrets: no key: set STYRMIN_SECRET_KEY or --secret-key-file to 32 random bytes as base64 (`openssl rand -base64 32`); secret parameters are encrypted with it")
}

// Seal encrypts plaintext. label binds the value to its place (for example
// "deployment 7 parameters"): a value copied elsewhere does not open.
func (b *Box) Seal(plaintext []byte, label string) []byte {
	nonce := make([]byte, b.aead.NonceSize(), 1+b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	rand.Read(nonce) // never fails
	out := append([]byte{version}, nonce...)
	return b.aead.Seal(out, nonce, plaintext, []byte(label))
}

// Open decrypts a value sealed with label; ErrWrongKey when it does not open.
func (b *Box) Open(sealed []byte, label string) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < 1+n || sealed[0] != version {
		return nil, ErrWrongKey
	}
	plain, err := b.aead.Open(nil, sealed[1:1+n], sealed[1+n:], []byte(label))
	if err != nil {
		return nil, ErrWrongKey
	}
	return plain, nil
}

// SealValues seals a map of secret values as JSON; nil for an empty map.
func (b *Box) SealValues(values map[string]string, label string) ([]byte, error) {
	if len(values) == 0 {
		return nil, nil
	}
	plain, err := json.Marshal(values)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	return b.Seal(plain, label), nil
}

// OpenValues opens what SealValues sealed; an empty map for nil.
func (b *Box) OpenValues(sealed []byte, label string) (map[string]string, error) {
	values := map[string]string{}
	if len(sealed) == 0 {
		return values, nil
	}
	plain, err := b.Open(sealed, label)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(plain, &values); err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	return values, nil
}

// checkLabel labels the known value that proves a key is the database's.
const checkLabel = "styrmin secret key check"

// Settings stores the key check: a known value sealed with the first key the
// database saw. (*db.Queries implements it.)
type Settings interface {
	InsertSettingIfAbsent(ctx context.Context, arg db.InsertSettingIfAbsentParams) error
	GetSetting(ctx context.Context, name string) ([]byte, error)
}

var _ Settings = (*db.Queries)(nil)

// checkSetting names the key check in the settings table.
const checkSetting = "secret_key_check"

// Verify fails with a clear error when b's key is not the one this database's
// secrets were sealed with; on the first start it records the key check.
func (b *Box) Verify(ctx context.Context, settings Settings) error {
	if err := settings.InsertSettingIfAbsent(ctx, db.InsertSettingIfAbsentParams{Name: checkSetting, Value: b.Seal([]byte(checkLabel), checkLabel)}); err != nil {
		return fmt.Errorf("secrets: record the key check: %w", err)
	}
	sealed, err := settings.GetSetting(ctx, checkSetting)
	if err != nil {
		return fmt.Errorf("secrets: read the key check: %w", err)
	}
	if _, err := b.Open(sealed, checkLabel); err != nil {
		return errors.New("secrets: STYRMIN_SECRET_KEY is not the key this database's secrets were encrypted with; start with the original key (a lost key means re-entering every secret parameter)")
	}
	return nil
}
