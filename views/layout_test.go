package views

import (
	"bytes"
	"context"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/version"
)

// renderDoc renders a component and parses it.
func renderDoc(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, c.Render(context.Background(), &buf))
	doc, err := goquery.NewDocumentFromReader(&buf)
	require.NoError(t, err)
	return doc
}

func TestLayoutNavigationFollowsTheRole(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		user  *User
		links []string
	}{
		{"anonymous", nil, nil},
		{"member", &User{Username: "m", Role: "member"}, []string{"/deployments", "/tasks", "/drivers", "/audit", "/teams", "/webhooks"}},
		{"read-only", &User{Username: "r", Role: "read-only"}, []string{"/deployments", "/tasks", "/drivers", "/namespaces", "/audit", "/teams", "/webhooks"}},
		{"operator", &User{Username: "o", Role: "operator"}, []string{"/deployments", "/tasks", "/drivers", "/namespaces", "/audit", "/teams", "/webhooks"}},
		{"admin", &User{Username: "a", Role: "admin"}, []string{"/deployments", "/tasks", "/drivers", "/namespaces", "/audit", "/teams", "/webhooks", "/users", "/settings"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := renderDoc(t, Layout(Page{Title: "T", User: tt.user, CSRFToken: "tok"}))
			var links []string
			doc.Find(`[data-testid="nav"] a`).Each(func(_ int, s *goquery.Selection) {
				links = append(links, s.AttrOr("href", ""))
			})
			require.Equal(t, tt.links, links)
			if tt.user == nil {
				require.Empty(t, doc.Find(`[data-testid="userbox"]`).Nodes)
				return
			}
			require.Equal(t, tt.user.Username, doc.Find(`[data-testid="current-user"]`).Text())
			require.Equal(t, tt.user.Role, doc.Find(`[data-testid="userbox"] [data-testid="role"]`).Text())
			require.Equal(t, "tok", doc.Find(`form[action="/signout"] input[name="_csrf"]`).AttrOr("value", ""))
		})
	}
}

func TestLayoutHead(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, Layout(Page{Title: "Users", Nav: NavUsers, User: &User{Username: "a", Role: "admin"}, CSRFToken: `t"ok`}))
	require.Equal(t, "Users · Styrmin", doc.Find("title").Text())
	require.Equal(t, `t"ok`, doc.Find(`meta[name="csrf-token"]`).AttrOr("content", ""))
	require.JSONEq(t, `{"X-CSRF-Token": "t\"ok"}`, doc.Find("body").AttrOr("hx-headers", ""), "htmx sends the token on every request")
	require.Contains(t, doc.Find(`meta[name="htmx-config"]`).AttrOr("content", ""), `"allowEval":false`)
	require.Regexp(t, `^/static/js/htmx\.min\.js\?v=[0-9a-f]{12}$`, doc.Find("script").AttrOr("src", ""))
	require.Regexp(t, `^/static/css/app\.css\?v=[0-9a-f]{12}$`, doc.Find(`link[rel="stylesheet"]`).AttrOr("href", ""))
	require.Equal(t, "/users", doc.Find(`nav [aria-current="page"]`).AttrOr("href", ""))
	require.Empty(t, doc.Find("script:not([src])").Nodes, "no inline script: the CSP forbids it")
	require.Empty(t, doc.Find("style").Nodes, "no inline style: the CSP forbids it")
}

func TestLayoutShowsFlashes(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, Layout(Page{Flashes: []Flash{{Kind: FlashSuccess, Message: "Saved <b>x</b>"}, {Kind: FlashError, Message: "Oops"}}}))
	require.Equal(t, "Saved <b>x</b>", doc.Find(`[data-testid="flash-success"]`).Text(), "messages are escaped")
	require.Equal(t, "Oops", doc.Find(`[data-testid="flash-error"]`).Text())
}

func TestErrorPage(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, ErrorPage(ErrorProps{Status: 403, Heading: "Not allowed", Message: "This needs the admin role."}))
	require.Equal(t, "403", doc.Find(`[data-testid="error-status"]`).Text())
	require.Equal(t, "Not allowed", doc.Find("h1").Text())
	require.Equal(t, "This needs the admin role.", doc.Find(`[data-testid="error-message"]`).Text())
	require.Equal(t, "/signin", doc.Find(`.error-page a`).AttrOr("href", ""), "anonymous visitors are offered to sign in")
}

func TestLayoutFooterNamesTheVersion(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, Layout(Page{Title: "T"}))
	require.Equal(t, version.Get().Version, doc.Find(`footer [data-testid="version"]`).Text())
	require.Equal(t, "Styrmin "+version.Get().Version, doc.Find("footer").Text())
}
