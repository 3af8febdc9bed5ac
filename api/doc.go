// Package api is the REST API's contract: openapi.yaml is the source of
// truth, and api.gen.go (types, the Echo strict server interface and the
// embedded document) is generated from it by `make generate` (oapi-codegen,
// settings in oapi-codegen.yaml). Package handlers/api implements
// StrictServerInterface.
//
// actions.yaml is the action primitives' contract (the calls driver actions
// make with an action token, which openapi.yaml leaves out); it is embedded
// as is (actions.go) and package actionstest checks requests and answers
// against it.
package api
