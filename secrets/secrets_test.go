package secrets_test

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/secrets"
)

// newKey returns a new random key.
func newKey(t *testing.T) []byte {
	t.Helper()
	key, err := secrets.ParseKey(secrets.NewKeyText())
	require.NoError(t, err)
	return key
}

// newBox returns a box that seals under current and opens under previous too.
func newBox(t *testing.T, current []byte, previous ...[]byte) *secrets.Box {
	t.Helper()
	box, err := secrets.NewBox(current, previous...)
	require.NoError(t, err)
	return box
}

// sealVersion1 seals plain as Styrmin did before key ids: a version byte 1,
// a nonce and the ciphertext, with label as the associated data.
func sealVersion1(t *testing.T, key, plain []byte, label string) []byte {
	t.Helper()
	block, err := aes.NewCipher(key)
	require.NoError(t, err)
	aead, err := cipher.NewGCM(block)
	require.NoError(t, err)
	nonce := make([]byte, aead.NonceSize())
	return aead.Seal(append([]byte{1}, nonce...), nonce, plain, []byte(label))
}

var deployment1 = secrets.At("deployments", "secrets", 1)

func TestSealedValuesOpenOnlyWithTheirKeyAndAtTheirPlace(t *testing.T) {
	t.Parallel()
	box := newBox(t, newKey(t))
	sealed, err := box.SealValues(map[string]string{"password": "hunter2-hunter2"}, deployment1)
	require.NoError(t, err)
	require.NotContains(t, string(sealed), "hunter2", "the value is not stored in clear")

	values, err := box.OpenValues(sealed, deployment1)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"password": "hunter2-hunter2"}, values)

	_, err = newBox(t, newKey(t)).OpenValues(sealed, deployment1)
	require.ErrorIs(t, err, secrets.ErrWrongKey, "another key gives an error, not garbage")
	sealed[len(sealed)-1] ^= 1
	_, err = box.OpenValues(sealed, deployment1)
	require.ErrorIs(t, err, secrets.ErrWrongKey, "an altered value does not open")

	again, err := box.SealValues(map[string]string{"password": "hunter2-hunter2"}, deployment1)
	require.NoError(t, err)
	require.NotEqual(t, sealed, again, "every seal has its own nonce")
}

func TestAValueCopiedToAnotherRowColumnOrTableDoesNotOpen(t *testing.T) {
	t.Parallel()
	box := newBox(t, newKey(t))
	sealed := box.Seal([]byte("hunter2-hunter2"), secrets.At("deployments", "secrets", 1))
	for _, elsewhere := range []secrets.Place{
		secrets.At("deployments", "secrets", 2),
		secrets.At("deployments", "parameters", 1),
		secrets.At("tasks", "secrets", 1),
	} {
		_, err := box.Open(sealed, elsewhere)
		require.ErrorIs(t, err, secrets.ErrWrongKey, elsewhere.String())
	}
}

func TestAValueCarriesTheIDOfItsKeyAndOpensWithItAsAPreviousKey(t *testing.T) {
	t.Parallel()
	old, next := newKey(t), newKey(t)
	oldBox := newBox(t, old)
	sealed := oldBox.Seal([]byte("hunter2-hunter2"), deployment1)
	require.Equal(t, oldBox.Header(), sealed[:len(oldBox.Header())], "the version and the key's id come first")

	rotating := newBox(t, next, old)
	require.False(t, rotating.SealedUnderCurrentKey(sealed))
	plain, err := rotating.Open(sealed, deployment1)
	require.NoError(t, err, "the previous key opens what it sealed")
	require.Equal(t, "hunter2-hunter2", string(plain))

	_, err = newBox(t, next).Open(sealed, deployment1)
	require.ErrorIs(t, err, secrets.ErrWrongKey)
	require.ErrorContains(t, err, oldBox.KeyID().String(), "the error names the missing key's id")
}

func TestVersion1ValuesStillOpenWithTheirOldLabelAndResealAsVersion2(t *testing.T) {
	t.Parallel()
	old, next := newKey(t), newKey(t)
	v1 := sealVersion1(t, old, []byte("hunter2-hunter2"), "deployment 1")
	at := deployment1.WithV1Label("deployment 1")

	plain, err := newBox(t, old).Open(v1, at)
	require.NoError(t, err)
	require.Equal(t, "hunter2-hunter2", string(plain))
	_, err = newBox(t, old).Open(v1, deployment1.WithV1Label("deployment 2"))
	require.ErrorIs(t, err, secrets.ErrWrongKey, "a version-1 value stays bound to its old label")

	rotating := newBox(t, next, old)
	resealed, err := rotating.Reseal(v1, at)
	require.NoError(t, err)
	require.True(t, rotating.SealedUnderCurrentKey(resealed))
	plain, err = newBox(t, next).Open(resealed, at)
	require.NoError(t, err, "once re-sealed, the new key alone opens it")
	require.Equal(t, "hunter2-hunter2", string(plain))
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

func TestLoadPreviousKeysFromAListOrAFileOfThem(t *testing.T) {
	t.Parallel()
	first, second := secrets.NewKeyText(), secrets.NewKeyText()
	path := filepath.Join(t.TempDir(), "previous")
	require.NoError(t, os.WriteFile(path, []byte(first+"\n"+second+"\n"), 0o600))
	fromText, err := secrets.LoadPreviousKeys(first+","+second, "")
	require.NoError(t, err)
	require.Len(t, fromText, 2)
	fromFile, err := secrets.LoadPreviousKeys("", path)
	require.NoError(t, err)
	require.Equal(t, fromText, fromFile)

	none, err := secrets.LoadPreviousKeys("", "")
	require.NoError(t, err)
	require.Empty(t, none)
	_, err = secrets.LoadPreviousKeys(first+",short", "")
	require.ErrorContains(t, err, "previous key 2")
	_, err = secrets.LoadPreviousKeys(first, path)
	require.ErrorContains(t, err, "not both")
}

func TestVerifyRefusesAnotherKeyThanTheDatabases(t *testing.T) {
	t.Parallel()
	q := db.New(dbtest.New(t))
	ctx := context.Background()
	first := newBox(t, newKey(t))
	require.NoError(t, first.Verify(ctx, q), "the first key is recorded")
	require.NoError(t, first.Verify(ctx, q), "and accepted again")
	require.ErrorContains(t, newBox(t, newKey(t)).Verify(ctx, q), "is the key this database's secrets were encrypted with")
}

func TestAfterTheKeyCheckIsResealedOnlyTheNewKeyStarts(t *testing.T) {
	t.Parallel()
	q := db.New(dbtest.New(t))
	ctx := context.Background()
	old, next := newKey(t), newKey(t)
	require.NoError(t, newBox(t, old).Verify(ctx, q))
	rotating := newBox(t, next, old)
	require.NoError(t, rotating.Verify(ctx, q), "the old key as a previous one is accepted during a rotation")

	require.NoError(t, rotating.ResealCheck(ctx, q))
	require.NoError(t, newBox(t, next).Verify(ctx, q), "the new key alone is the database's now")
	require.Error(t, newBox(t, old).Verify(ctx, q), "the old key alone no longer is")
}

func TestVerifyOpensAVersion1KeyCheck(t *testing.T) {
	t.Parallel()
	q := db.New(dbtest.New(t))
	ctx := context.Background()
	key := newKey(t)
	check := sealVersion1(t, key, []byte("styrmin secret key check"), "styrmin secret key check")
	require.NoError(t, q.InsertSettingIfAbsent(ctx, db.InsertSettingIfAbsentParams{Name: "secret_key_check", Value: check}))
	require.NoError(t, newBox(t, key).Verify(ctx, q), "a database from before key ids opens with its key")
	require.Error(t, newBox(t, newKey(t)).Verify(ctx, q))
}
