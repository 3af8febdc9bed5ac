package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"

	"github.com/styrmin/styrmin"
)

// Lengths of the key and of the salt of every hash.
const (
	argonKeyLen  = 32
	argonSaltLen = 16
)

// Argon2Params are the argon2id costs new password hashes are made with;
// a hash records its costs, so hashes made with other costs still verify.
type Argon2Params struct {
	MemoryKiB uint32
	Passes    uint32
	Threads   uint8
}

// DefaultArgon2 is the production setting: the OWASP recommendation of
// 19 MiB memory, two passes, one lane.
func DefaultArgon2() Argon2Params {
	return Argon2Params{MemoryKiB: 19 * 1024, Passes: 2, Threads: 1}
}

// CheapArgon2 is the cheapest setting argon2id accepts (8 KiB, one pass,
// one lane). It protects nothing: it is for tests, which create many users.
func CheapArgon2() Argon2Params {
	return Argon2Params{MemoryKiB: 8, Passes: 1, Threads: 1}
}

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 10

// MaxPasswordLength bounds passwords (in bytes) so that hashing stays cheap.
const MaxPasswordLength = 1024

// Hash returns the argon2id hash of password made with p, in PHC string
// format ($argon2id$v=19$m=...,t=...,p=...$salt$hash).
func (p Argon2Params) Hash(password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("auth: salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, p.Passes, p.MemoryKiB, p.Threads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.MemoryKiB, p.Passes, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// VerifyPassword reports whether password matches a hash made by Argon2Params.Hash,
// using the parameters recorded in the hash.
func VerifyPassword(hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return false, errors.New("auth: password hash is not an argon2id PHC string")
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, fmt.Errorf("auth: unsupported argon2 version %q", parts[2])
	}
	var memory, passes uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &passes, &threads); err != nil {
		return false, fmt.Errorf("auth: argon2 parameters %q: %w", parts[3], err)
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false, fmt.Errorf("auth: argon2 salt: %w", err)
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil {
		return false, fmt.Errorf("auth: argon2 hash: %w", err)
	}
	got := argon2.IDKey([]byte(password), salt, passes, memory, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// CheckPassword refuses passwords too short to be safe or too long to hash cheaply.
func CheckPassword(password string) error {
	if len(password) > MaxPasswordLength {
		return &styrmin.Error{
			Code:    styrmin.EINVALID,
			Message: fmt.Sprintf("The password is too long; use at most %d bytes.", MaxPasswordLength),
			Fields:  map[string]string{"password": fmt.Sprintf("At most %d bytes.", MaxPasswordLength)},
		}
	}
	if len([]rune(password)) < MinPasswordLength {
		return &styrmin.Error{
			Code:    styrmin.EINVALID,
			Message: fmt.Sprintf("The password must have at least %d characters.", MinPasswordLength),
			Fields:  map[string]string{"password": fmt.Sprintf("At least %d characters.", MinPasswordLength)},
		}
	}
	return nil
}

// GeneratePassword returns a random password of 26 base32 characters (130 bits).
func GeneratePassword() string { return rand.Text() }

// PasswordOrGenerated returns password, or a generated one when password is
// blank; generated says which, so that a generated password can be shown once.
func PasswordOrGenerated(password string) (pw string, generated bool) {
	if password == "" {
		return GeneratePassword(), true
	}
	return password, false
}
