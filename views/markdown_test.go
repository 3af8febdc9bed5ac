package views

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMarkdownHTML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		src     string
		want    []string
		notWant []string
	}{
		{
			name: "formatting and lists survive",
			src:  "Some **bold** text.\n\n- one\n- two\n",
			want: []string{"<strong>bold</strong>", "<li>one</li>"},
		},
		{
			name:    "raw HTML and script are dropped",
			src:     "Hello <script>alert(1)</script><b onclick=\"x()\">there</b>",
			notWant: []string{"<script", "alert(1)</script>", "onclick"},
		},
		{
			name:    "javascript links lose their href",
			src:     "[click](javascript:alert(1))",
			notWant: []string{"javascript:"},
		},
		{
			name: "absolute links open in a new tab without referrer",
			src:  "[docs](https://example.com/docs)",
			want: []string{`href="https://example.com/docs"`, `nofollow`, `noreferrer`, `target="_blank"`},
		},
		{
			name:    "images are removed so nothing is hot-linked",
			src:     "![logo](https://tracker.example.com/pixel.png)",
			notWant: []string{"<img", "tracker.example.com"},
		},
		{
			name: "tables and fenced code keep their structure",
			src:  "| a | b |\n|---|---|\n| 1 | 2 |\n\n```yaml\nkey: value\n```\n",
			want: []string{"<table>", "<td>1</td>", `<code class="language-yaml">`},
		},
	}
	md := NewMarkdown()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := md.HTML(tt.src)
			require.NoError(t, err)
			for _, w := range tt.want {
				require.Contains(t, string(got), w)
			}
			for _, nw := range tt.notWant {
				require.NotContains(t, string(got), nw)
			}
		})
	}
}
