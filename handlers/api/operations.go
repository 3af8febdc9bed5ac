package api

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"

	"github.com/labstack/echo/v4"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
)

// RoleExtension is the key of an operation's least role in api/openapi.yaml:
// the one place that says who may call each operation.
const RoleExtension = "x-styrmin-role"

// Operation is one operation of api/openapi.yaml as the server routes it.
type Operation struct {
	// ID is the document's operationId (UpdateUser).
	ID string
	// Method and Path route the operation; Path has Prefix and Echo's :params.
	Method, Path string
	// Least is the least role allowed to call it: its RoleExtension.
	Least auth.Role
	// Handler is the generated handler of the operation over the server.
	Handler echo.HandlerFunc
	// MaxBody bounds the request's body: MaxRequest, or more for an upload.
	MaxBody int64
}

// uploads are the operations whose body may exceed MaxRequest, by
// operationId as the generated server spells it, with their own bound.
var uploads = map[string]int64{"UploadDriver": MaxUpload}

// Operations returns every operation of the embedded document, ordered by
// path then method, with its least role and its handler over s. An
// operation without a known role, or without a generated handler, is an
// error: the document must say who may call every operation.
func Operations(s *Server) ([]Operation, error) {
	doc, err := oapi.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("api: load the OpenAPI document: %w", err)
	}
	handlers := Handlers(s)
	var ops []Operation
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			o := Operation{ID: op.OperationID, Method: method, Path: echoPath(path), MaxBody: cmp.Or(uploads[op.OperationID], MaxRequest)}
			if o.Least, err = leastRoleOf(op.Extensions[RoleExtension]); err != nil {
				return nil, fmt.Errorf("api: %s %s (%s): %s: %w", method, path, op.OperationID, RoleExtension, err)
			}
			if o.Handler = handlers[o.Method+" "+o.Path]; o.Handler == nil {
				return nil, fmt.Errorf("api: %s %s (%s) has no generated handler", method, path, op.OperationID)
			}
			ops = append(ops, o)
		}
	}
	slices.SortFunc(ops, func(a, b Operation) int { return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Method, b.Method)) })
	return ops, nil
}

// leastRoleOf is the role an operation's RoleExtension names: a user's
// role, or "anonymous" for an operation that takes no token.
func leastRoleOf(extension any) (auth.Role, error) {
	name, ok := extension.(string)
	if !ok {
		return auth.Anonymous, fmt.Errorf("missing, or not a role name: %v", extension)
	}
	if name == auth.Anonymous.String() {
		return auth.Anonymous, nil
	}
	return auth.ParseRole(name)
}

// pathParam is a parameter of a path of the document: {id}.
var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// echoPath is the route of a path of the document: Prefix, then the path
// with Echo's :params ("/users/{id}" is "/api/v1/users/:id").
func echoPath(path string) string {
	return Prefix + pathParam.ReplaceAllString(path, ":$1")
}
