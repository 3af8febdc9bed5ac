// Package client is the generated Go client of the REST API
// (api/openapi.yaml); `make generate` writes client.gen.go.
package client
