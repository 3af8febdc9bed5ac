package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/styrmin/styrmin/api/client"
)

// apiPrefix is where a server's REST API lives (api/openapi.yaml's server).
const apiPrefix = "/api/v1"

// maxProblem bounds how much of an error answer is read.
const maxProblem = 64 << 10

// newClient is the REST API's client for l: every request carries l's
// token, and every answer that is not a success comes back as an *Error
// with the server's message and the exit code of its status.
func newClient(l Login, h *http.Client) (*client.ClientWithResponses, error) {
	c, err := client.NewClientWithResponses(l.URL+apiPrefix, client.WithHTTPClient(authorized{http: h, login: l}))
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
}

// Do sends req with the token; an answer of 400 or more is an *Error.
func (a authorized) Do(req *http.Request) (*http.Response, error) {
	req.Header.Set("Authorization", "Bearer "+a.login.Token)
	resp, err := a.http.Do(req)
	if err != nil {
		return nil, fail(ExitUnavailable, "Cannot reach %s: %v", a.login.URL, err)
	}
	if resp.StatusCode < http.StatusBadRequest {
		return resp, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProblem))
	if err != nil {
		return nil, fail(ExitUnavailable, "%s answered %s and the answer broke off: %v", a.login.URL, resp.Status, err)
	}
	return nil, problemError(resp.StatusCode, resp.Status, body)
}

// problemError is an error answer as an Error: its problem's detail and
// bundle problems, or its status when it is no problem document.
func problemError(status int, statusText string, body []byte) *Error {
	var p client.Problem
	if json.Unmarshal(body, &p) != nil || p.Detail == "" {
		return fail(exitOfStatus(status), "The server answered %s.", statusText)
	}
	msg := p.Detail
	if p.Problems != nil {
		var b strings.Builder
		b.WriteString(msg)
		for _, bp := range *p.Problems {
			b.WriteString("\n  " + bundleProblemText(bp))
		}
		msg = b.String()
	}
	return fail(exitOfStatus(status), "%s", msg)
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
