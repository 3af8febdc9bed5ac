package auth_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
)

func TestHashIsArgon2idPHCAndVerifies(t *testing.T) {
	t.Parallel()
	hash, err := auth.DefaultArgon2().Hash("correct horse battery")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$"), hash)

	ok, err := auth.VerifyPassword(hash, "correct horse battery")
	require.NoError(t, err)
	require.True(t, ok)

	ok, err = auth.VerifyPassword(hash, "correct horse batterY")
	require.NoError(t, err)
	require.False(t, ok)

	other, err := auth.DefaultArgon2().Hash("correct horse battery")
	require.NoError(t, err)
	require.NotEqual(t, hash, other, "each hash has its own salt")
}

func TestCheapArgon2HashesVerify(t *testing.T) {
	t.Parallel()
	hash, err := auth.CheapArgon2().Hash("correct horse battery")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(hash, "$argon2id$v=19$m=8,t=1,p=1$"), hash)
	ok, err := auth.VerifyPassword(hash, "correct horse battery")
	require.NoError(t, err)
	require.True(t, ok)
}

func TestVerifyPasswordUsesTheParametersInTheHash(t *testing.T) {
	t.Parallel()
	// Made with m=8192,t=1,p=2: verifying must not assume today's parameters.
	const hash = "$argon2id$v=19$m=8192,t=1,p=2$c29tZXNhbHRzb21lc2FsdA$Ak9LJ9U3vWzGk9n+tlPTx41ZB0PvMUnENKkmUD7cVKQ"
	_, err := auth.VerifyPassword(hash, "x")
	require.NoError(t, err)
}

func TestVerifyPasswordRefusesMalformedHashes(t *testing.T) {
	t.Parallel()
	for _, hash := range []string{
		"",
		"plain",
		"$argon2i$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
		"$argon2id$v=18$m=19456,t=2,p=1$c2FsdA$aGFzaA",
		"$argon2id$v=19$m=x,t=2,p=1$c2FsdA$aGFzaA",
		"$argon2id$v=19$m=19456,t=2,p=1$!!!$aGFzaA",
	} {
		_, err := auth.VerifyPassword(hash, "x")
		require.Error(t, err, hash)
	}
}

func TestCheckPassword(t *testing.T) {
	t.Parallel()
	tests := []struct {
		password string
		ok       bool
	}{
		{"", false},
		{"123456789", false},
		{"1234567890", true},
		{"ääääääääää", true}, // counted in characters, not bytes
		{strings.Repeat("x", auth.MaxPasswordLength), true},
		{strings.Repeat("x", auth.MaxPasswordLength+1), false},
	}
	for _, tt := range tests {
		err := auth.CheckPassword(tt.password)
		if tt.ok {
			require.NoError(t, err, tt.password)
		} else {
			require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), tt.password)
		}
	}
}

func TestGeneratePasswordIsLongAndRandom(t *testing.T) {
	t.Parallel()
	a, b := auth.GeneratePassword(), auth.GeneratePassword()
	require.NoError(t, auth.CheckPassword(a))
	require.NotEqual(t, a, b)
}

func TestPasswordOrGenerated(t *testing.T) {
	t.Parallel()
	pw, generated := auth.PasswordOrGenerated("typed password")
	require.Equal(t, "typed password", pw)
	require.False(t, generated)

	pw, generated = auth.PasswordOrGenerated("")
	require.True(t, generated)
	require.NoError(t, auth.CheckPassword(pw), "a generated password passes the password rules")
	other, _ := auth.PasswordOrGenerated("")
	require.NotEqual(t, pw, other)
}
