package oci_test

import (
	"bytes"
	"context"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/stretchr/testify/require"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/oci"
)

// setup starts a registry on loopback and returns a client of it and a
// reference to the repository drivers/hello in it, tagged tag.
func setup(t *testing.T, tag string) (oci.Client, oci.Ref) {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	ref, err := oci.ParseRef("oci://" + strings.TrimPrefix(srv.URL, "http://") + "/drivers/hello:" + tag)
	require.NoError(t, err)
	return oci.Client{PlainHTTP: true}, ref
}

// keyPairs are made once per test binary: a password's key derivation
// (scrypt) is slow on purpose.
var keyPairs = sync.OnceValues(func() (map[string]*oci.KeyPair, error) {
	pairs := map[string]*oci.KeyPair{}
	for _, name := range []string{"alice", "bob"} {
		kp, err := oci.GenerateKeyPair([]byte("pw-" + name))
		if err != nil {
			return nil, err
		}
		pairs[name] = kp
	}
	return pairs, nil
})

// keyPair is the key pair of name (alice or bob, whose password is
// pw-NAME) and its public key.
func keyPair(t *testing.T, name string) (*oci.KeyPair, oci.Key) {
	t.Helper()
	pairs, err := keyPairs()
	require.NoError(t, err)
	v, err := oci.LoadVerifier(pairs[name].Public)
	require.NoError(t, err)
	return pairs[name], oci.Key{Name: name, Verifier: v}
}

// sign signs ref with the key pair.
func sign(t *testing.T, c oci.Client, ref oci.Ref, kp *oci.KeyPair, password string) string {
	t.Helper()
	s, err := oci.LoadSigner(kp.Private, []byte(password))
	require.NoError(t, err)
	dgst, err := c.Sign(context.Background(), ref, s)
	require.NoError(t, err)
	return dgst
}

var config = oci.BundleConfig{Name: "hello", Version: "1.0.0", Digest: "sha256:0123"}

func TestPushThenPullGivesTheSameBundleAndDigest(t *testing.T) {
	t.Parallel()
	c, ref := setup(t, "1.0.0")
	archive := []byte("the bundle archive's bytes")
	pushed, err := c.Push(context.Background(), ref, archive, config)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(pushed.Digest, "sha256:"))

	got, err := c.Pull(context.Background(), ref, 1<<20)
	require.NoError(t, err)
	require.Equal(t, pushed.Digest, got.Digest)
	require.Equal(t, archive, got.Archive)
	require.Equal(t, config, got.Config)

	tags, err := c.Tags(context.Background(), ref)
	require.NoError(t, err)
	require.Equal(t, []string{"1.0.0"}, tags)
}

func TestPullRefusesABundleLargerThanItsLimitBeforeReadingIt(t *testing.T) {
	t.Parallel()
	c, ref := setup(t, "1.0.0")
	_, err := c.Push(context.Background(), ref, bytes.Repeat([]byte("x"), 2048), config)
	require.NoError(t, err)
	_, err = c.Pull(context.Background(), ref, 1024)
	require.ErrorIs(t, err, oci.ErrTooLarge)
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
}

func TestPullRefusesAnImageThatIsNotADriverBundle(t *testing.T) {
	t.Parallel()
	c, ref := setup(t, "1.0.0")
	_, err := c.Push(context.Background(), ref, []byte("bundle"), config)
	require.NoError(t, err)
	kp, _ := keyPair(t, "alice")
	dgst := sign(t, c, ref, kp, "pw-alice")
	// The signature manifest is an image of other layers: not a bundle.
	_, err = c.Pull(context.Background(), ref.WithReference(oci.SignatureTag(dgst)), 1<<20)
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	require.ErrorContains(t, err, "is not a driver bundle")
}

func TestASignedBundleVerifiesWithItsPublicKeyOnly(t *testing.T) {
	t.Parallel()
	c, ref := setup(t, "1.0.0")
	pushed, err := c.Push(context.Background(), ref, []byte("bundle"), config)
	require.NoError(t, err)
	alice, aliceKey := keyPair(t, "alice")
	_, bobKey := keyPair(t, "bob")
	require.Equal(t, pushed.Digest, sign(t, c, ref, alice, "pw-alice"))

	by, err := c.Verify(context.Background(), ref, pushed.Digest, []oci.Key{bobKey, aliceKey})
	require.NoError(t, err)
	require.Equal(t, "alice", by)

	_, err = c.Verify(context.Background(), ref, pushed.Digest, []oci.Key{bobKey})
	require.ErrorIs(t, err, oci.ErrBadSignature)
}

func TestASecondSignatureIsAddedBesideTheFirst(t *testing.T) {
	t.Parallel()
	c, ref := setup(t, "1.0.0")
	pushed, err := c.Push(context.Background(), ref, []byte("bundle"), config)
	require.NoError(t, err)
	alice, aliceKey := keyPair(t, "alice")
	bob, bobKey := keyPair(t, "bob")
	sign(t, c, ref, alice, "pw-alice")
	sign(t, c, ref, bob, "pw-bob")
	for _, k := range []oci.Key{aliceKey, bobKey} {
		by, err := c.Verify(context.Background(), ref, pushed.Digest, []oci.Key{k})
		require.NoError(t, err)
		require.Equal(t, k.Name, by)
	}
}

func TestAnUnsignedBundleFailsVerification(t *testing.T) {
	t.Parallel()
	c, ref := setup(t, "1.0.0")
	pushed, err := c.Push(context.Background(), ref, []byte("bundle"), config)
	require.NoError(t, err)
	_, key := keyPair(t, "alice")
	_, err = c.Verify(context.Background(), ref, pushed.Digest, []oci.Key{key})
	require.ErrorIs(t, err, oci.ErrUnsigned)
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
}

// The attack: the bundle is replaced under its tag and the original's
// signatures are copied to the new digest's signature tag. The signed payload
// names the original digest, so the copy verifies nothing.
func TestATamperedBundleWithTheOriginalsSignatureCopiedFailsVerification(t *testing.T) {
	t.Parallel()
	c, ref := setup(t, "1.0.0")
	_, err := c.Push(context.Background(), ref, []byte("bundle"), config)
	require.NoError(t, err)
	alice, aliceKey := keyPair(t, "alice")
	signed := sign(t, c, ref, alice, "pw-alice")

	tampered, err := c.Push(context.Background(), ref, []byte("bundle with a backdoor"), config)
	require.NoError(t, err)
	require.NotEqual(t, signed, tampered.Digest)
	_, err = c.Verify(context.Background(), ref, tampered.Digest, []oci.Key{aliceKey})
	require.ErrorIs(t, err, oci.ErrUnsigned)

	oci.CopyTag(t, c, ref, oci.SignatureTag(signed), oci.SignatureTag(tampered.Digest))
	_, err = c.Verify(context.Background(), ref, tampered.Digest, []oci.Key{aliceKey})
	require.ErrorIs(t, err, oci.ErrBadSignature)
}

func TestAPrivateKeyNeedsItsPassword(t *testing.T) {
	t.Parallel()
	kp, _ := keyPair(t, "alice")
	require.Contains(t, string(kp.Private), "ENCRYPTED SIGSTORE PRIVATE KEY")
	_, err := oci.LoadSigner(kp.Private, []byte("wrong"))
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	_, err = oci.LoadVerifier([]byte("not a key"))
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
}

func TestParseRefSaysWhatAReferenceLooksLike(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"registry.example.com/drivers/hello:1.0.0", "oci://", "oci://registry.example.com/UPPER:1"} {
		_, err := oci.ParseRef(s)
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), s)
		require.ErrorContains(t, err, "oci://HOST/REPOSITORY", s)
	}
	ref, err := oci.ParseRef("oci://localhost:5000/drivers/hello:1.0.0")
	require.NoError(t, err)
	require.Equal(t, "oci://localhost:5000/drivers/hello", ref.Repository())
	require.Equal(t, "oci://localhost:5000/drivers/hello:1.0.0", ref.String())
}
