package handlerstest

import (
	"context"
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// sampleDriver is a driver file for the tests; %s is spec.version and %s spec.info.icon.
const sampleDriver = `apiVersion: styrmin.io/v1
kind: Driver
metadata:
  name: sample
  labels: {category: test}
spec:
  version: %s
  supported_versions: ">=1.0.0"
  info:
    title: Sample
    icon: %s
    description: |
      Sample **driver** <script>alert("description")</script>
  helm:
    main:
      location: ./chart
      version: 1.0.0
`

// SampleFiles returns the files of a sample bundle at the archive's top.
func SampleFiles(version, icon, readme string) map[string][]byte {
	return map[string][]byte{
		"driver.styrmin.yml": fmt.Appendf(nil, sampleDriver, version, icon),
		"README.md":          []byte(readme),
		"chart/Chart.yaml":   []byte("apiVersion: v2\nname: sample\nversion: 1.0.0\n"),
	}
}

// ImportSample imports a sample bundle straight into the catalogue.
func ImportSample(t *testing.T, env *CatalogEnv, version, icon, readme string) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, data := range SampleFiles(version, icon, readme) {
		fsys["sample/"+name] = &fstest.MapFile{Data: data}
	}
	_, err := env.Catalog.ImportFS(context.Background(), fsys, "sample", "test")
	require.NoError(t, err)
}
