// Package api is the REST API's contract: openapi.yaml is the source of
// truth, and api.gen.go (types, the Echo strict server interface and the
// embedded document) is generated from it by `make generate` (oapi-codegen,
// settings in oapi-codegen.yaml). Package handlers/api implements
// StrictServerInterface.
package api
