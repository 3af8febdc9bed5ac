package release

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

const heldManifest = `---
# Source: app/templates/web.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
---
# Source: app/templates/db.yaml
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  annotations: {team: data}
spec:
  serviceName: db
---
# Source: app/templates/other.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: other
spec:
  replicas: 2
`

func TestHoldStoppedSetsHeldWorkloadsToZero(t *testing.T) {
	t.Parallel()
	out, err := holdStopped{{Kind: "Deployment", Name: "web"}, {Kind: "StatefulSet", Name: "db"}}.Run(bytes.NewBufferString(heldManifest))
	require.NoError(t, err)
	docs := bytes.Split(out.Bytes(), []byte("---\n"))
	require.Len(t, docs, 4, "one document each, after an empty head")

	type workload struct {
		Metadata struct {
			Name        string            `json:"name"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Spec map[string]any `json:"spec"`
	}
	var web, db, other workload
	for doc, into := range map[int]*workload{1: &web, 2: &db, 3: &other} {
		require.NoError(t, yaml.Unmarshal(docs[doc], into))
	}
	require.Equal(t, float64(0), web.Spec["replicas"])
	require.Equal(t, "3", web.Metadata.Annotations[HeldAnnotation], "the chart's replicas are kept in the mark")
	require.Equal(t, float64(0), db.Spec["replicas"], "a workload without replicas gets 0 too")
	require.Equal(t, map[string]string{"team": "data", HeldAnnotation: "1"}, db.Metadata.Annotations)
	require.Equal(t, float64(2), other.Spec["replicas"], "a workload not held is left alone")
	require.Contains(t, string(docs[3]), "# Source: app/templates/other.yaml", "a document not held passes unchanged")
	require.Empty(t, other.Metadata.Annotations)
}

func TestHoldStoppedRefusesABrokenManifest(t *testing.T) {
	t.Parallel()
	_, err := holdStopped{{Kind: "Deployment", Name: "web"}}.Run(bytes.NewBufferString("kind: Deployment\nmetadata: {name: web\n"))
	require.Error(t, err)
}
