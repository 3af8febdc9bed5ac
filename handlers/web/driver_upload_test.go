package web_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/drivers"
)

func TestDriverUploadRefusesBundlesPastTheLimitsAsInvalid(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	admin := env.SignedIn(t, auth.Admin)
	tests := []struct {
		name  string
		extra map[string][]byte
		want  string
	}{
		{"four files of 15.9 MiB", map[string][]byte{
			"a.bin": make([]byte, 159<<20/10), "b.bin": make([]byte, 159<<20/10), "c.bin": make([]byte, 159<<20/10), "d.bin": make([]byte, 159<<20/10),
		}, "is larger than 8 MiB"},
		{"files adding up past the limit", map[string][]byte{
			"a.bin": make([]byte, drivers.MaxBundleFileSize), "b.bin": make([]byte, drivers.MaxBundleFileSize),
		}, "add up to more than 16 MiB"},
		{"a name that is not UTF-8", map[string][]byte{"chart/bad\xff.yaml": []byte("a: 1\n")}, `entry name "chart/bad\xff.yaml" is not UTF-8`},
	}
	for _, tt := range tests {
		files := handlerstest.SampleFiles("3.0.0", "", "")
		for name, data := range tt.extra {
			files[name] = data
		}
		archive, err := catalog.Pack(files)
		require.NoError(t, err)
		_, doc := upload(t, env, admin, "big.tar.gz", archive, http.StatusBadRequest)
		require.Contains(t, doc.Find(`[data-testid="upload-error"]`).Text(), tt.want, fmt.Sprintf("%s is refused, saying why", tt.name))
	}
}
