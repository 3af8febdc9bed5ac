package views

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// Markdown renders untrusted Markdown (a driver's description or README) to
// sanitised HTML. Raw HTML in the source is dropped, links get
// rel="nofollow noreferrer" (and open in a new tab when absolute), and images
// are removed so that a page never loads anything from a third-party host.
type Markdown struct {
	engine goldmark.Markdown
	policy *bluemonday.Policy
}

// NewMarkdown returns a Markdown renderer with GitHub-flavoured extensions.
func NewMarkdown() *Markdown {
	return &Markdown{
		engine: goldmark.New(goldmark.WithExtensions(extension.GFM)),
		policy: markdownPolicy(),
	}
}

// markdownPolicy allows the elements Markdown produces, except images.
func markdownPolicy() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowStandardURLs()
	p.AllowURLSchemes("http", "https", "mailto")
	p.AllowElements("p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6",
		"blockquote", "pre", "code", "em", "strong", "del", "s", "sub", "sup", "kbd")
	p.AllowLists()
	p.AllowTables()
	p.AllowAttrs("href").OnElements("a")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^language-[\w+#-]+$`)).OnElements("code")
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").OnElements("input")
	p.AllowAttrs("align").Matching(regexp.MustCompile(`^(left|right|center)$`)).OnElements("th", "td")
	p.RequireNoFollowOnLinks(true)
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	return p
}

// SafeHTML is HTML produced by Markdown.HTML: sanitised, safe to embed in a page.
type SafeHTML string

// HTML converts src to sanitised HTML.
func (m *Markdown) HTML(src string) (SafeHTML, error) {
	var buf bytes.Buffer
	if err := m.engine.Convert([]byte(src), &buf); err != nil {
		return "", fmt.Errorf("markdown: convert: %w", err)
	}
	return SafeHTML(m.policy.Sanitize(buf.String())), nil
}
