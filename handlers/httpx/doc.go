// Package httpx is what the server and its three adapters (the pages, the
// REST API and the action primitives) share: the user, session and caller a
// request carries, the mapping of error codes to statuses and headings, and
// the caches of decoded driver specs.
package httpx
