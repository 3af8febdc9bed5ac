package secrets_test

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/secrets"
)

func newBox(t *testing.T) *secrets.Box {
	t.Helper()
	key, err := secrets.ParseKey(secrets.NewKeyText())
	require.NoError(t, err)
	box, err := secrets.NewBox(key)
	require.NoError(t, err)
	return box
}

func TestSealedValuesOpenOnlyWithTheirKeyAndLabel(t *testing.T) {
	t.Parallel()
	box := newBox(t)
	sealed, err := box.SealValues(map[string]string{"password": "hunter2-hunter2"}, "deployment 1")
	require.NoError(t, err)
	require.NotContains(t, string(sealed), "hunter2", "the value is not stored in clear")

	values, err := box.OpenValues(sealed, "deployment 1")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"password": "hunter2-hunter2"}, values)

	_, err = box.OpenValues(sealed, "deployment 2")
	require.ErrorIs(t, err, secrets.ErrWrongKey, "a value copied to another deployment does not open")
	_, err = newBox(t).OpenValues(sealed, "deployment 1")
	require.ErrorIs(t, err, secrets.ErrWrongKey, "another key gives an error, not garbage")
	sealed[len(sealed)-1] ^= 1
	_, err = box.OpenValues(sealed, "deployment 1")
	require.ErrorIs(t, err, secrets.ErrWrongKey, "an altered value does not open")

	again, err := box.SealValues(map[string]string{"password": "hunter2-hunter2"}, "deployment 1")
	require.NoError(t, err)
	require.NotEqual(t, sealed, again, "every seal has its own nonce")
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	raw := make([]byte, secrets.KeySize)
	for i := range raw {
		raw[i] = byte(i)
	}
	for _, text := range []string{
		"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
		"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8\n",
		hex.EncodeToString(raw),
	} {
		key, err := secrets.ParseKey(text)
		require.NoError(t, err, text)
		require.Equal(t, raw, key)
	}
	for _, text := range []string{"", "short", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd"} {
		_, err := secrets.ParseKey(text)
		require.ErrorContains(t, err, "openssl rand -base64 32", text)
	}
}

func TestLoadKeyFromTextOrFile(t *testing.T) {
	t.Parallel()
	text := secrets.NewKeyText()
	path := filepath.Join(t.TempDir(), "key")
	require.NoError(t, os.WriteFile(path, []byte(text+"\n"), 0o600))
	fromText, err := secrets.LoadKey(text, "")
	require.NoError(t, err)
	fromFile, err := secrets.LoadKey("", path)
	require.NoError(t, err)
	require.Equal(t, fromText, fromFile)

	_, err = secrets.LoadKey("", "")
	require.ErrorContains(t, err, "set STYRMIN_SECRET_KEY or --secret-key-file")
	_, err = secrets.LoadKey(text, path)
	require.ErrorContains(t, err, "not both")
}

func TestVerifyRefusesAnotherKeyThanTheDatabases(t *testing.T) {
	t.Parallel()
	q := db.New(dbtest.New(t))
	ctx := context.Background()
	first := newBox(t)
	require.NoError(t, first.Verify(ctx, q), "the first key is recorded")
	require.NoError(t, first.Verify(ctx, q), "and accepted again")
	require.ErrorContains(t, newBox(t).Verify(ctx, q), "is not the key this database's secrets were encrypted with")
}
