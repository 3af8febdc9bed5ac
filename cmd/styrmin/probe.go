package main

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/views"
)

func newProbeCmd() *cobra.Command {
	var username, password string
	cmd := &cobra.Command{
		Use:   "probe URL",
		Short: "Check a running Styrmin at URL: /readyz answers ready and the user signs in (the Helm chart's test)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if password == "" {
				return fmt.Errorf("probe: set the password of %q in STYRMIN_ADMIN_PASSWORD or --password", username)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
			defer cancel()
			if err := probe(ctx, strings.TrimSuffix(args[0], "/"), username, password); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s is ready and %q signed in.\n", args[0], username)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&username, "username", "admin", "the user who signs in")
	f.StringVar(&password, "password", os.Getenv("STYRMIN_ADMIN_PASSWORD"), "their password (env STYRMIN_ADMIN_PASSWORD)")
	return cmd
}

// csrfMeta finds the CSRF token a page carries (views' layout).
var csrfMeta = regexp.MustCompile(`<meta name="csrf-token" content="([^"]*)"`)

// probe reads base's /readyz, signs in as username through the sign-in
// form and opens a page only a signed-in user sees. Cookies are carried by
// hand: a server behind an https external URL sets Secure ones, which a
// cookie jar would not send back over the plain HTTP of a Service.
func probe(ctx context.Context, base, username, password string) error {
	client := &http.Client{Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(method, path string, body url.Values, cookies []*http.Cookie) (*http.Response, string, error) {
		var r io.Reader
		if body != nil {
			r = strings.NewReader(body.Encode())
		}
		req, err := http.NewRequestWithContext(ctx, method, base+path, r)
		if err != nil {
			return nil, "", fmt.Errorf("probe: %s %s: %w", method, path, err)
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		for _, c := range cookies {
			req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		}
		res, err := client.Do(req)
		if err != nil {
			return nil, "", fmt.Errorf("probe: %s %s: %w", method, path, err)
		}
		defer res.Body.Close()
		text, err := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		if err != nil {
			return nil, "", fmt.Errorf("probe: %s %s: read the answer: %w", method, path, err)
		}
		return res, string(text), nil
	}
	res, text, err := send(http.MethodGet, "/readyz", nil, nil)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("probe: /readyz answered %s: %s", res.Status, text)
	}
	res, text, err = send(http.MethodGet, "/signin", nil, nil)
	if err != nil {
		return err
	}
	csrf := csrfMeta.FindStringSubmatch(text)
	if res.StatusCode != http.StatusOK || csrf == nil {
		return fmt.Errorf("probe: /signin answered %s without a sign-in form", res.Status)
	}
	res, _, err = send(http.MethodPost, "/signin", url.Values{"username": {username}, "password": {password}, views.CSRFField: {html.UnescapeString(csrf[1])}}, res.Cookies())
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusSeeOther {
		return fmt.Errorf("probe: signing in as %q was refused (%s)", username, res.Status)
	}
	res, _, err = send(http.MethodGet, "/account/sessions", nil, res.Cookies())
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("probe: signed in as %q, but the account page answered %s", username, res.Status)
	}
	return nil
}
