package sdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
)

// everyPrimitive calls each primitive of the package with every argument it
// sends, so that each field the package can send goes over the wire.
const everyPrimitive = `
import styrmin
from styrmin import pod
pod.fetch_run()
styrmin.deployment()
styrmin.stop_components(["primary"])
styrmin.start_components()
styrmin.upgrade_deployment_version("16.5.0", prompts={"backup": {"label": "nightly", "keep": 3, "verify": True}})
styrmin.execute_commands(["true"], image="busybox", env={"A": "1"}, secret_env={"PGPASSWORD": "superuser_password"}, timeout=60)
`

// TestTheSDKCallsThePrimitivesAsTheDocumentSays runs every primitive of the
// styrmin package against a server made from api/actions.yaml: each request
// must be an operation of the document, with the action token and a body its
// schema allows (every field declared: the schemas allow no other), and is
// answered with the document's example. Every operation must be called.
func TestTheSDKCallsThePrimitivesAsTheDocumentSays(t *testing.T) {
	t.Parallel()
	doc, err := api.ActionsDocument()
	require.NoError(t, err)
	fake := newDocumentServer(doc)
	srv := httptest.NewServer(fake)
	defer srv.Close()

	cmd := exec.Command("python3", "-B", "-c", everyPrimitive)
	cmd.Env = append(os.Environ(), "PYTHONPATH=python", "STYRMIN_API_URL="+srv.URL, "STYRMIN_ACTION_TOKEN=sta_test-token")
	out, err := cmd.CombinedOutput()
	require.Empty(t, fake.refused(), "requests api/actions.yaml does not allow")
	require.NoError(t, err, "%s", out)
	var all []string
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			all = append(all, op.OperationID)
		}
	}
	slices.Sort(all)
	require.Equal(t, all, fake.called(), "the package calls every operation of api/actions.yaml")
}

// documentServer answers the operations of an OpenAPI document with their
// examples, noting which it was asked and what it refused.
type documentServer struct {
	doc    *openapi3.T
	mu     sync.Mutex
	calls  map[string]bool
	errors []string
}

func newDocumentServer(doc *openapi3.T) *documentServer {
	return &documentServer{doc: doc, calls: map[string]bool{}}
}

// ServeHTTP checks the request against the document and answers the
// example of its operation's success.
func (s *documentServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op, answer, err := s.answer(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.errors = append(s.errors, fmt.Sprintf("%s %s: %v", r.Method, r.URL.Path, err))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
		return
	}
	s.calls[op.OperationID] = true
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(answer.status)
	_ = json.NewEncoder(w).Encode(answer.body)
}

// example is a documented answer.
type example struct {
	status int
	body   any
}

// answer validates r (with the action token) and returns its operation and
// the example of its 2xx answer.
func (s *documentServer) answer(r *http.Request) (*openapi3.Operation, example, error) {
	router, err := legacy.NewRouter(s.doc)
	if err != nil {
		return nil, example{}, err
	}
	route, params, err := router.FindRoute(r)
	if err != nil {
		return nil, example{}, err
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: actionToken}}
	if err := openapi3filter.ValidateRequest(r.Context(), in); err != nil {
		return nil, example{}, err
	}
	for code, ref := range route.Operation.Responses.Map() {
		var status int
		if _, err := fmt.Sscan(code, &status); err != nil || status/100 != 2 {
			continue
		}
		media := ref.Value.Content.Get("application/json")
		if media == nil || media.Example == nil {
			return nil, example{}, fmt.Errorf("operation %s: its %d answer has no example", route.Operation.OperationID, status)
		}
		return route.Operation, example{status: status, body: media.Example}, nil
	}
	return nil, example{}, fmt.Errorf("operation %s has no 2xx answer", route.Operation.OperationID)
}

// actionToken accepts the bearer token the package must send: an action token.
func actionToken(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	token, ok := strings.CutPrefix(in.RequestValidationInput.Request.Header.Get("Authorization"), "Bearer ")
	if !ok || !strings.HasPrefix(token, "sta_") {
		return fmt.Errorf("no action token (Authorization: Bearer sta_...)")
	}
	return nil
}

// called are the operations asked, by id.
func (s *documentServer) called() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id := range s.calls {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// refused are the requests the document does not allow.
func (s *documentServer) refused() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.errors)
}
