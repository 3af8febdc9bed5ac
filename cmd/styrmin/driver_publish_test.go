package main

import (
	"context"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/stretchr/testify/require"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/oci"
)

// startRegistry starts an OCI registry on loopback and returns its host:port.
func startRegistry(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

func TestDriverKeygenPushAndSignPublishAVersionItsPublicKeyVerifies(t *testing.T) {
	t.Setenv(passwordEnv, "secret")
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	dir := t.TempDir()
	host := startRegistry(t)

	out, _, err := runDriverCmd(t, "keygen", "--dir", dir)
	require.NoError(t, err)
	require.Contains(t, out, "cosign.pub")
	_, _, err = runDriverCmd(t, "keygen", "--dir", dir)
	require.ErrorContains(t, err, "exists already")

	out, _, err = runDriverCmd(t, "push", "--plain-http", "../../drivers/bundled/hello-web", "oci://"+host+"/drivers/hello-web")
	require.NoError(t, err)
	require.Contains(t, out, "pushed oci://"+host+"/drivers/hello-web:")
	digest := strings.TrimSpace(out[strings.Index(out, "digest: ")+len("digest: "):])

	_, _, err = runDriverCmd(t, "push", "--plain-http", "../../drivers/bundled/hello-web", "oci://"+host+"/drivers/hello-web:9.9.9")
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	require.ErrorContains(t, err, "is not the driver's version")

	ref := "oci://" + host + "/drivers/hello-web@" + digest
	out, _, err = runDriverCmd(t, "sign", "--plain-http", "--key", filepath.Join(dir, "cosign.key"), ref)
	require.NoError(t, err)
	require.Contains(t, out, "digest: "+digest)

	pub, err := os.ReadFile(filepath.Join(dir, "cosign.pub"))
	require.NoError(t, err)
	v, err := oci.LoadVerifier(pub)
	require.NoError(t, err)
	r, err := oci.ParseRef(ref)
	require.NoError(t, err)
	by, err := oci.Client{PlainHTTP: true}.Verify(context.Background(), r, digest, []oci.Key{{Name: "author", Verifier: v}})
	require.NoError(t, err)
	require.Equal(t, "author", by)

	t.Setenv(passwordEnv, "wrong")
	_, _, err = runDriverCmd(t, "sign", "--plain-http", "--key", filepath.Join(dir, "cosign.key"), ref)
	require.ErrorContains(t, err, "password is wrong")
}

func TestDriverPackageAndSignBlobMakeAnArchiveAndASignatureItsPublicKeyVerifies(t *testing.T) {
	t.Setenv(passwordEnv, "secret")
	dir := t.TempDir()
	_, _, err := runDriverCmd(t, "keygen", "--dir", dir)
	require.NoError(t, err)
	out, _, err := runDriverCmd(t, "package", "--dir", dir, "../../drivers/bundled/hello-web")
	require.NoError(t, err)
	archiveFile := strings.TrimSpace(out[strings.Index(out, " into ")+len(" into ") : strings.Index(out, "\n")])

	out, _, err = runDriverCmd(t, "sign-blob", "--key", filepath.Join(dir, "cosign.key"), archiveFile)
	require.NoError(t, err)
	require.Equal(t, "signed "+archiveFile+"\nsignature: "+archiveFile+".sig\n", out)

	archive, err := os.ReadFile(archiveFile)
	require.NoError(t, err)
	sig, err := os.ReadFile(archiveFile + ".sig")
	require.NoError(t, err)
	pub, err := os.ReadFile(filepath.Join(dir, "cosign.pub"))
	require.NoError(t, err)
	v, err := oci.LoadVerifier(pub)
	require.NoError(t, err)
	by, err := oci.VerifyBlob(archive, sig, []oci.Key{{Name: "author", Verifier: v}})
	require.NoError(t, err)
	require.Equal(t, "author", by, "the signature is of the archive's bytes, as an index source checks it")
	_, err = oci.VerifyBlob(append(archive, 0), sig, []oci.Key{{Name: "author", Verifier: v}})
	require.ErrorIs(t, err, oci.ErrBadSignature, "a changed archive is not what was signed")

	_, _, err = runDriverCmd(t, "sign-blob", "--key", filepath.Join(dir, "cosign.key"), filepath.Join(dir, "missing.tar.gz"))
	require.ErrorContains(t, err, "Cannot read the archive")
}
