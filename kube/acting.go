package kube

import (
	"fmt"
	"net/http"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"
)

// ActingAs returns a Client for c's cluster whose every request inside a
// namespace (its objects and their subresources: pods, logs, Jobs, Secrets,
// workloads, events, watches) acts as actAs(namespace), while requests
// outside any namespace (namespaces themselves, nodes, discovery, the
// server's version) keep c's own identity. It is the one place the worker's
// namespaced work gets its namespace's deployer (package deployer): its own
// identity then needs no right inside the namespaces it deploys to, and
// what NamespaceLeftovers lists is what that namespace's deployer sees.
// Config stays c's own, for the clients that choose their identity
// themselves (Helm's, the deployers').
func (c *Client) ActingAs(actAs func(namespace string) rest.ImpersonationConfig) (*Client, error) {
	config := rest.CopyConfig(c.Config)
	config.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &actingTransport{actAs: actAs, next: rt} })
	acting, err := New(config)
	if err != nil {
		return nil, fmt.Errorf("kube: acting client: %w", err)
	}
	acting.Config, acting.OwnNamespace = c.Config, c.OwnNamespace
	return acting, nil
}

// actingTransport sends the requests inside a namespace as that namespace's
// identity.
type actingTransport struct {
	actAs func(namespace string) rest.ImpersonationConfig
	next  http.RoundTripper
}

// RoundTrip sends req, impersonating its namespace's identity when it is
// inside one.
func (t *actingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	namespace, ok := RequestNamespace(req.URL.Path)
	if !ok {
		return t.next.RoundTrip(req)
	}
	as := t.actAs(namespace)
	impersonation := transport.ImpersonationConfig{UserName: as.UserName, UID: as.UID, Groups: as.Groups, Extra: as.Extra}
	return transport.NewImpersonatingRoundTripper(impersonation, t.next).RoundTrip(req)
}

// RequestNamespace is the namespace an API path acts inside, as the API
// server reads it (k8s.io/apiserver's RequestInfoFactory): the N of
// /api/v1/namespaces/N/RESOURCE... and /apis/GROUP/VERSION/namespaces/N/RESOURCE...
// (and their legacy /watch/ forms). A namespace object itself
// (/api/v1/namespaces/N, its status and finalize) is not inside it.
func RequestNamespace(path string) (string, bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return "", false
	}
	if len(parts) > 0 && parts[0] == "watch" {
		parts = parts[1:]
	}
	if len(parts) < 3 || parts[0] != "namespaces" || parts[1] == "" || parts[2] == "" {
		return "", false
	}
	if len(parts) == 3 && (parts[2] == "status" || parts[2] == "finalize") {
		return "", false // a subresource of the namespace object
	}
	return parts[1], true
}
