package api_test

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
)

// TestTheDocumentNamesTheTaskKindsOfTheRegistry: the REST API's TaskKind
// enum, the webhooks' kinds and the Python client's list_tasks name the
// kinds of deployment.TaskKinds, in its order; TaskInputs has a schema
// for each kind, whose kind is that kind alone.
func TestTheDocumentNamesTheTaskKindsOfTheRegistry(t *testing.T) {
	t.Parallel()
	doc, err := oapi.GetSpec()
	require.NoError(t, err)
	var enum []string
	for _, v := range doc.Components.Schemas["TaskKind"].Value.Enum {
		enum = append(enum, v.(string))
	}
	require.Equal(t, deployment.TaskKinds(), enum, "api/openapi.yaml's TaskKind")

	inputs := doc.Components.Schemas["TaskInputs"].Value
	mapped := map[string]string{}
	for kind, ref := range inputs.Discriminator.Mapping {
		schema := doc.Components.Schemas[strings.TrimPrefix(ref.Ref, "#/components/schemas/")]
		require.NotNil(t, schema, "%s maps to %s, which the document lacks", kind, ref.Ref)
		require.Equal(t, []any{kind}, schema.Value.Properties["kind"].Value.Enum, "%s's kind", ref.Ref)
		mapped[kind] = ref.Ref
	}
	require.ElementsMatch(t, deployment.TaskKinds(), slices.Collect(maps.Keys(mapped)), "api/openapi.yaml's TaskInputs has a schema per kind")
	require.Len(t, inputs.OneOf, len(mapped), "TaskInputs' oneOf is its mapping's schemas")

	listed := "(" + strings.Join(deployment.TaskKinds(), ", ") + ")"
	kinds := doc.Components.Schemas["NewWebhook"].Value.Properties["kinds"].Value.Description
	require.Contains(t, kinds, listed, "api/openapi.yaml's webhook kinds")

	client, err := os.ReadFile("../../sdk/python/styrmin/client.py")
	require.NoError(t, err)
	require.Contains(t, strings.Join(strings.Fields(string(client)), " "), "``kind`` "+listed, "the Python client's list_tasks")
}
