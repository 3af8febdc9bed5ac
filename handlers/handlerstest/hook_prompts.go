package handlerstest

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// hookedDriver is a driver whose install and delete run actions that ask
// prompts, one of them secret.
const hookedDriver = `apiVersion: styrmin.io/v1
kind: Driver
metadata:
  name: hooked
  labels: {category: test}
spec:
  version: 1.0.0
  supported_versions: ">=1.0.0"
  info:
    title: Hooked
  helm:
    main:
      location: ./chart
      version: 1.0.0
  parameters:
    - {name: size, type: integer, default: 1}
  actions:
    - name: seed
      title: Seed the data
      description: Loads **sample** rows.
      hook: pre-install
      function: "actions:seed"
      prompts:
        - {name: rows, title: Rows, type: integer, default: 3, min: 1, max: 10}
        - {name: api_key, title: API key, type: secret, required: true}
    - name: archive
      title: Archive the data
      hook: pre-delete
      function: "actions:archive"
      prompts:
        - {name: bucket, title: Bucket, type: string, default: backups}
        - {name: token, title: Archive token, type: secret, required: true}
`

// PromptSecret is a secret prompt value that must never come back in a page.
const PromptSecret = "pr0mpt-s3cret-never-shown"

// ImportHooked imports the hooked driver into d's catalogue.
func ImportHooked(t *testing.T, d DeployApp) {
	t.Helper()
	fsys := fstest.MapFS{
		"hooked/driver.styrmin.yml": {Data: []byte(hookedDriver)},
		"hooked/chart/Chart.yaml":   {Data: []byte("apiVersion: v2\nname: hooked\nversion: 1.0.0\n")},
		"hooked/actions.py":         {Data: []byte("def seed(rows, api_key):\n    pass\n\n\ndef archive(bucket, token):\n    pass\n")},
	}
	_, err := d.Catalog.ImportFS(context.Background(), fsys, "hooked", "test")
	require.NoError(t, err)
}
