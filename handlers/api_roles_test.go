package handlers_test

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers"
	handlersapi "github.com/styrmin/styrmin/handlers/api"
)

// TestTheDocumentSaysWhoMayCallEachOperation checks each operation's
// x-styrmin-role in api/openapi.yaml against the permission table, which is
// what the server enforces: the document tells script authors the truth.
func TestTheDocumentSaysWhoMayCallEachOperation(t *testing.T) {
	t.Parallel()
	doc, err := oapi.GetSpec()
	require.NoError(t, err)
	least := map[string]auth.Role{}
	for _, r := range handlers.Table(handlers.Deps{}) {
		if r.API {
			least[r.Method+" "+r.Path] = r.Least
		}
	}
	pathParam := regexp.MustCompile(`\{([^}]+)\}`)
	operations := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			key := method + " " + handlersapi.Prefix + pathParam.ReplaceAllString(path, ":$1")
			role, ok := least[key]
			require.True(t, ok, "%s (%s) has no line in the permission table", key, op.OperationID)
			require.Equal(t, role.String(), op.Extensions["x-styrmin-role"], "%s (%s): the document's role", key, op.OperationID)
			operations++
		}
	}
	require.Equal(t, len(least), operations, "every API line of the table is an operation of the document")
}
