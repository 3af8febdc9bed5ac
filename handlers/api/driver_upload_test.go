package api_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/drivers"
	handlersapi "github.com/styrmin/styrmin/handlers/api"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// uploadArchive posts archive to POST /api/v1/drivers as token.
func uploadArchive(t *testing.T, a *handlerstest.App, token string, archive []byte) *httptest.ResponseRecorder {
	t.Helper()
	return a.Send(t, token, http.MethodPost, "/api/v1/drivers", "application/octet-stream", bytes.NewReader(archive))
}

// packed is files as a bundle archive.
func packed(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	archive, err := catalog.Pack(files)
	require.NoError(t, err)
	return archive
}

// requireNoSample fails the test when the catalogue holds the sample driver.
func requireNoSample(t *testing.T, a *handlerstest.App, why string) {
	t.Helper()
	_, err := a.Catalog.VersionRefs(context.Background(), "sample")
	require.Error(t, err, why)
}

func TestAPIUploadImportsABundleForAdminsOnly(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	archive := packed(t, handlerstest.SampleFiles("2.0.0", "", "# Sample"))

	for _, role := range []auth.Role{auth.ReadOnly, auth.Operator} {
		refused(t, uploadArchive(t, a, a.TokenFor(t, "u-"+role.String(), role), archive), http.StatusForbidden)
		requireNoSample(t, a, role.String()+" cannot upload")
	}

	admin := a.TokenFor(t, "ada", auth.Admin)
	v := decoded[api.DriverVersion](t, uploadArchive(t, a, admin, archive), http.StatusCreated)
	require.Equal(t, "sample", v.Name)
	require.Equal(t, "2.0.0", v.Version)
	require.Equal(t, "ada", v.CreatedBy)
	require.Equal(t, "# Sample", v.Readme)
	got := decoded[api.DriverVersion](t, a.Call(t, admin, http.MethodGet, "/api/v1/drivers/sample/versions/2.0.0", nil), http.StatusOK)
	require.Equal(t, v.Digest, got.Digest, "the catalogue serves what was uploaded")

	again := decoded[api.DriverVersion](t, uploadArchive(t, a, admin, archive), http.StatusOK)
	require.Equal(t, v.Digest, again.Digest, "the same bundle again changes nothing")
	changed := packed(t, handlerstest.SampleFiles("2.0.0", "", "# Other"))
	p := refused(t, uploadArchive(t, a, admin, changed), http.StatusConflict)
	require.Contains(t, p.Detail, "raise spec.version")

	entries := auditPages(t, a, admin, url.Values{"action": {audit.ActionDriverUpload}})
	outcomes := map[string]int{}
	for _, e := range entries {
		outcomes[string(e.Outcome)]++
	}
	require.Equal(t, map[string]int{"allowed": 2, "refused": 3}, outcomes,
		"every upload is recorded: two imports; two roles and one conflict refused")
}

func TestAPIUploadRefusesHostileArchivesAndStoresNothing(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin := a.TokenFor(t, "ada", auth.Admin)
	with := func(extra map[string][]byte) []byte {
		files := handlerstest.SampleFiles("2.0.0", "", "")
		for name, data := range extra {
			files[name] = data
		}
		return packed(t, files)
	}
	oversize := make([]byte, handlersapi.MaxUpload+1)
	_, err := rand.Read(oversize)
	require.NoError(t, err)
	tests := []struct {
		name    string
		archive []byte
		status  int
		want    string
	}{
		{"a body past the upload limit", oversize, http.StatusRequestEntityTooLarge, "larger than this operation accepts (16 MiB)"},
		{"a name climbing out of the bundle", with(map[string][]byte{"../../etc/cron.d/evil": []byte("* * * * * root sh\n")}), http.StatusBadRequest, `"../../etc/cron.d/evil"`},
		{"an absolute name", with(map[string][]byte{"/etc/passwd": []byte("x")}), http.StatusBadRequest, `"/etc/passwd"`},
		{"a bomb: 32 MiB of zeros in a few KiB", with(map[string][]byte{"chart/zeros.bin": make([]byte, 32<<20)}), http.StatusBadRequest, "larger than 8 MiB"},
		{"not an archive", []byte("driver.styrmin.yml"), http.StatusBadRequest, "not gzip-compressed"},
	}
	for _, tt := range tests {
		p := refused(t, uploadArchive(t, a, admin, tt.archive), tt.status)
		require.Contains(t, p.Detail, tt.want, tt.name)
		requireNoSample(t, a, tt.name+" stores nothing")
	}
	require.Less(t, len(tests[3].archive), 64<<10, "the bomb is small on the wire")
}

func TestAPIUploadListsEveryContractProblem(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	files := handlerstest.SampleFiles("not-a-version", "", "")
	p := refused(t, uploadArchive(t, a, a.TokenFor(t, "ada", auth.Admin), packed(t, files)), http.StatusBadRequest)
	require.NotNil(t, p.Problems, p.Detail)
	require.NotEmpty(t, *p.Problems)
	first := (*p.Problems)[0]
	require.Equal(t, drivers.SpecFile, first.File)
	require.NotNil(t, first.Line, "a problem says its line")
	require.Contains(t, p.Detail, "breaks the driver contract")
	requireNoSample(t, a, "a bundle that breaks the contract is not stored")
}
