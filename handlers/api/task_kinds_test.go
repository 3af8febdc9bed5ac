package api_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
)

// TestTheDocumentNamesTheTaskKindsOfTheRegistry: the REST API's TaskKind
// enum, the webhooks' kinds and the Python client's list_tasks name the
// kinds of deployment.TaskKinds, in its order.
func TestTheDocumentNamesTheTaskKindsOfTheRegistry(t *testing.T) {
	t.Parallel()
	doc, err := oapi.GetSpec()
	require.NoError(t, err)
	var enum []string
	for _, v := range doc.Components.Schemas["TaskKind"].Value.Enum {
		enum = append(enum, v.(string))
	}
	require.Equal(t, deployment.TaskKinds(), enum, "api/openapi.yaml's TaskKind")

	listed := "(" + strings.Join(deployment.TaskKinds(), ", ") + ")"
	kinds := doc.Components.Schemas["NewWebhook"].Value.Properties["kinds"].Value.Description
	require.Contains(t, kinds, listed, "api/openapi.yaml's webhook kinds")

	client, err := os.ReadFile("../../sdk/python/styrmin/client.py")
	require.NoError(t, err)
	require.Contains(t, strings.Join(strings.Fields(string(client)), " "), "``kind`` "+listed, "the Python client's list_tasks")
}
