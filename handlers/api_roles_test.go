package handlers_test

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers"
	handlersapi "github.com/styrmin/styrmin/handlers/api"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// documentOperation is an operation of api/openapi.yaml, routed as the server routes it.
type documentOperation struct {
	method, path string
	op           *openapi3.Operation
}

// documentOperations lists every operation of the embedded document.
func documentOperations(t *testing.T) []documentOperation {
	t.Helper()
	doc, err := oapi.GetSpec()
	require.NoError(t, err)
	pathParam := regexp.MustCompile(`\{([^}]+)\}`)
	var out []documentOperation
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			out = append(out, documentOperation{method: method, path: handlersapi.Prefix + pathParam.ReplaceAllString(path, ":$1"), op: op})
		}
	}
	return out
}

// TestEveryOperationOfTheDocumentHasARole: the document is the one place
// that says who may call each operation (x-styrmin-role); the permission
// table takes each API line's least role from it, and has a line for each
// operation and no other.
func TestEveryOperationOfTheDocumentHasARole(t *testing.T) {
	t.Parallel()
	lines := map[string]handlers.TableRoute{}
	for _, r := range handlers.Table(handlers.Deps{}) {
		if r.API {
			lines[r.Method+" "+r.Path] = r
		}
	}
	ops := documentOperations(t)
	for _, o := range ops {
		key := o.method + " " + o.path
		name, _ := o.op.Extensions[handlersapi.RoleExtension].(string)
		role := auth.Anonymous // an operation open to anyone: the password grant
		if name != auth.Anonymous.String() {
			var err error
			role, err = auth.ParseRole(name)
			require.NoError(t, err, "%s (%s) names its least role", key, o.op.OperationID)
		}
		require.Equal(t, role, lines[key].Least, "%s (%s): the table's role is the document's", key, o.op.OperationID)
	}
	require.Len(t, lines, len(ops), "every API line of the table is an operation of the document")
}

// TestAReadOnlyTokenIsRefusedEveryMutatingOperation calls every operation of
// the document that changes state with a read-only user's token: each is
// refused, except those that change only the caller's own tokens.
func TestAReadOnlyTokenIsRefusedEveryMutatingOperation(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	token := a.TokenFor(t, "scripted-reader", auth.ReadOnly)
	for _, o := range documentOperations(t) {
		key := o.method + " " + o.path
		if o.method == http.MethodGet || ownCredentialRoutes[key] {
			continue
		}
		rec := a.Call(t, token, o.method, samplePath(o.path), nil)
		require.Equal(t, http.StatusForbidden, rec.Code, "%s (%s): %s", key, o.op.OperationID, rec.Body)
		require.Contains(t, rec.Body.String(), "read-only role", "%s: the answer says why", key)
	}
}
