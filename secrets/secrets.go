// Package secrets seals the values of secret parameters for storage in
// PostgreSQL with AES-256-GCM, under keys the database never holds. Each
// sealed value names the key it was sealed with and is bound to its place
// (table, column and row), so that a value copied elsewhere does not open.
package secrets

import (
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
)

// The formats of a sealed value, told apart by its first byte.
const (
	// version1 is a version byte, a nonce and the ciphertext, sealed with a
	// label of the caller's choosing (Place.V1Label). It is still opened, by
	// trying every key, and re-sealed as version2 by `styrmin secrets rotate`.
	version1 byte = 1
	// version2 is a version byte, the key's id, a nonce and the ciphertext;
	// the version, the key id and the place are its associated data.
	version2 byte = 2
)

// headerSize is the length of a version-2 value's version byte and key id.
const headerSize = 1 + keyIDSize

// ErrWrongKey means a sealed value does not open: none of the keys given is
// the one it was sealed with, it was copied from another place, or it was altered.
var ErrWrongKey = errors.New("secrets: the value does not open with these keys (a different STYRMIN_SECRET_KEY, a value copied from elsewhere, or altered data)")

// Box seals values under its current key and opens them under the current
// key or a previous one, which is what a key rotation needs.
type Box struct {
	current key
	// keys are the current key and the previous ones, by id.
	keys map[KeyID]key
	// order lists the keys' ids, the current one first: version-1 values,
	// which name no key, are tried with each in this order.
	order []KeyID
}

// NewBox returns a Box that seals under current and also opens what was
// sealed under one of previous.
func NewBox(current []byte, previous ...[]byte) (*Box, error) {
	b := &Box{keys: map[KeyID]key{}}
	for i, raw := range append([][]byte{current}, previous...) {
		k, err := newKey(raw)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			b.current = k
		}
		if _, dup := b.keys[k.id]; !dup {
			b.keys[k.id] = k
			b.order = append(b.order, k.id)
		}
	}
	return b, nil
}

// KeyID is the id of the key b seals with.
func (b *Box) KeyID() KeyID { return b.current.id }

// Header is how every value b seals begins: its version and key id. A value
// that does not begin so is not yet sealed under b's current key.
func (b *Box) Header() []byte { return append([]byte{version2}, b.current.id[:]...) }

// Seal encrypts plaintext under the current key, bound to the place it is
// stored at: a value copied to another place does not open.
func (b *Box) Seal(plaintext []byte, at Place) []byte {
	header := b.Header()
	aead := b.current.aead
	out := make([]byte, headerSize+aead.NonceSize(), headerSize+aead.NonceSize()+len(plaintext)+aead.Overhead())
	copy(out, header)
	nonce := out[headerSize:]
	rand.Read(nonce) // never fails
	return aead.Seal(out, nonce, plaintext, associatedData(header, at))
}

// Open decrypts a value sealed at the place at; an error wrapping
// ErrWrongKey when it does not open.
func (b *Box) Open(sealed []byte, at Place) ([]byte, error) {
	if len(sealed) == 0 {
		return nil, ErrWrongKey
	}
	switch sealed[0] {
	case version1:
		return b.openVersion1(sealed, at)
	case version2:
		return b.openVersion2(sealed, at)
	}
	return nil, ErrWrongKey
}

// openVersion2 opens sealed with the key it names.
func (b *Box) openVersion2(sealed []byte, at Place) ([]byte, error) {
	if len(sealed) < headerSize {
		return nil, ErrWrongKey
	}
	id := KeyID(sealed[1:headerSize])
	k, ok := b.keys[id]
	if !ok {
		return nil, fmt.Errorf("%w: it was sealed under the key with id %s, which is neither STYRMIN_SECRET_KEY nor one of STYRMIN_PREVIOUS_SECRET_KEYS", ErrWrongKey, id)
	}
	return open(k.aead, sealed[headerSize:], associatedData(sealed[:headerSize], at))
}

// openVersion1 opens sealed with the first key that opens it.
func (b *Box) openVersion1(sealed []byte, at Place) ([]byte, error) {
	if at.V1Label == "" {
		return nil, ErrWrongKey
	}
	for _, id := range b.order {
		if plain, err := open(b.keys[id].aead, sealed[1:], []byte(at.V1Label)); err == nil {
			return plain, nil
		}
	}
	return nil, ErrWrongKey
}

// open opens body, a nonce followed by a ciphertext, with the associated data ad.
func open(aead cipher.AEAD, body, ad []byte) ([]byte, error) {
	n := aead.NonceSize()
	if len(body) < n {
		return nil, ErrWrongKey
	}
	plain, err := aead.Open(nil, body[:n], body[n:], ad)
	if err != nil {
		return nil, ErrWrongKey
	}
	return plain, nil
}

// associatedData binds a version-2 value to its header and its place.
func associatedData(header []byte, at Place) []byte {
	return append(append([]byte{}, header...), at.String()...)
}

// SealValues seals a map of secret values as JSON; nil for an empty map.
func (b *Box) SealValues(values map[string]string, at Place) ([]byte, error) {
	if len(values) == 0 {
		return nil, nil
	}
	plain, err := json.Marshal(values)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	return b.Seal(plain, at), nil
}

// OpenValues opens what SealValues sealed; an empty map for nil.
func (b *Box) OpenValues(sealed []byte, at Place) (map[string]string, error) {
	values := map[string]string{}
	if len(sealed) == 0 {
		return values, nil
	}
	plain, err := b.Open(sealed, at)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(plain, &values); err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	return values, nil
}

// Reseal opens sealed and seals it again under the current key, at the same
// place; a value already under the current key comes back unchanged.
func (b *Box) Reseal(sealed []byte, at Place) ([]byte, error) {
	if len(sealed) == 0 || b.SealedUnderCurrentKey(sealed) {
		return sealed, nil
	}
	plain, err := b.Open(sealed, at)
	if err != nil {
		return nil, err
	}
	return b.Seal(plain, at), nil
}

// SealedUnderCurrentKey tells whether sealed is a version-2 value under the
// key b seals with.
func (b *Box) SealedUnderCurrentKey(sealed []byte) bool {
	return len(sealed) >= headerSize && string(sealed[:headerSize]) == string(b.Header())
}
