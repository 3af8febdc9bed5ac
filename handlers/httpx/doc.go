// Package httpx is what the server and its three adapters (the pages, the
// REST API and the action primitives) share: the user, session and caller a
// request carries, and the mapping of error codes to statuses and headings.
package httpx
