package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/styrmin/styrmin/api/client"
)

// apiPrefix is where a server's REST API lives (api/openapi.yaml's server).
const apiPrefix = "/api/v1"

// maxProblem bounds how much of an error answer is read.
const maxProblem = 64 << 10

// maxAnswer bounds a successful answer: the largest list or driver version
// is far smaller, and a client that trusted any size could be made to
// exhaust its memory by whatever answers at the URL.
const maxAnswer = 32 << 20

// newClient is the REST API's client for l: every request carries l's
// token, and every answer that is not a success comes back as an *Error
// with the server's message and the exit code of its status.
func newClient(l Login, h *http.Client) (*client.ClientWithResponses, error) {
	c, err := client.NewClientWithResponses(l.URL+apiPrefix, client.WithHTTPClient(authorized{http: h, login: l, max: maxAnswer}))
	if err != nil {
		return nil, fmt.Errorf("cli: %w", err)
	}
	return c, nil
}

// authorized sends requests with a login's token and turns failures into
// Errors.
type authorized struct {
	http  *http.Client
	login Login
	// max bounds a successful answer's body.
	max int64
}

// Do sends req with the token; an answer of 400 or more is an *Error.
func (a authorized) Do(req *http.Request) (*http.Response, error) {
	bearer(req, a.login.Token)
	resp, err := a.http.Do(req)
	if err != nil {
		return nil, fail(ExitUnavailable, "Cannot reach %s: %v", a.login.URL, err)
	}
	if resp.StatusCode < http.StatusBadRequest {
		resp.Body = &bounded{ReadCloser: resp.Body, left: a.max, url: a.login.URL}
		return resp, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProblem))
	if err != nil {
		return nil, fail(ExitUnavailable, "%s answered %s and the answer broke off: %v", a.login.URL, resp.Status, err)
	}
	return nil, problemError(resp.StatusCode, resp.Status, body)
}

// problemError is an error answer as an Error: its problem's detail, the
// message of each field it names and its bundle problems, or its status
// when it is no problem document.
func problemError(status int, statusText string, body []byte) *Error {
	var p client.Problem
	if json.Unmarshal(body, &p) != nil || p.Detail == "" {
		return fail(exitOfStatus(status), "The server answered %s.", statusText)
	}
	var b strings.Builder
	b.WriteString(p.Detail)
	if p.Fields != nil {
		for _, field := range slices.Sorted(maps.Keys(*p.Fields)) {
			b.WriteString("\n  " + field + ": " + (*p.Fields)[field])
		}
	}
	if p.Problems != nil {
		for _, bp := range *p.Problems {
			b.WriteString("\n  " + bundleProblemText(bp))
		}
	}
	return fail(exitOfStatus(status), "%s", b.String())
}

// bundleProblemText is a bundle problem as FILE:LINE:COLUMN: FIELD: message.
func bundleProblemText(p client.BundleProblem) string {
	where := p.File
	if p.Line != nil {
		where += fmt.Sprintf(":%d", *p.Line)
		if p.Column != nil {
			where += fmt.Sprintf(":%d", *p.Column)
		}
	}
	if p.Field != nil {
		where += ": " + *p.Field
	}
	return where + ": " + p.Message
}

// bounded is an answer's body that fails past a size: reading its last
// allowed byte and one more is an *Error (ExitUnavailable).
type bounded struct {
	io.ReadCloser
	left int64
	url  string
}

// Read reads up to the bound, then fails if anything is left.
func (b *bounded) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		if n, _ := b.ReadCloser.Read(one[:]); n > 0 {
			return 0, fail(ExitUnavailable, "The answer of %s is larger than this client reads (%d MiB): is it a Styrmin server?", b.url, maxAnswer>>20)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// bearer sets the Authorization header of req to token's, unless there is
// no token (the password grant, which needs none).
func bearer(req *http.Request, token string) {
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
}
