package drivers

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Title returns spec.info.title, or metadata.name when it is unset.
func (d *Driver) Title() string {
	if d.Spec.Info.Title != "" {
		return d.Spec.Info.Title
	}
	return d.Metadata.Name
}

// Summary returns the first paragraph of spec.info.description as plain text,
// with Markdown markup removed and lines joined; "" when there is none.
func (d *Driver) Summary() string {
	src := []byte(d.Spec.Info.Description)
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	var out strings.Builder
	_ = ast.Walk(doc, // the walker never fails
		func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering || n.Kind() != ast.KindParagraph {
				return ast.WalkContinue, nil
			}
			plainText(&out, n, src)
			return ast.WalkStop, nil
		})
	return strings.Join(strings.Fields(out.String()), " ")
}

// plainText writes the text of n's inline descendants, line breaks as spaces.
func plainText(out *strings.Builder, n ast.Node, src []byte) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch t := c.(type) {
		case *ast.Text:
			out.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				out.WriteByte(' ')
			}
		case *ast.String:
			out.Write(t.Value)
		default:
			plainText(out, c, src)
		}
	}
}

// DefaultValues maps every parameter that has a valid default to that default,
// in its canonical type (see Parameter.Check).
func (d *Driver) DefaultValues() map[string]any {
	vals := map[string]any{}
	for i := range d.Spec.Parameters {
		p := &d.Spec.Parameters[i]
		if p.Default == nil {
			continue
		}
		if v, err := p.Check(p.Default); err == nil {
			vals[p.Name] = v
		}
	}
	return vals
}

// SampleValues are DefaultValues with a placeholder for each required
// parameter that has no valid default (a value within its range, length and
// choices), for rendering the chart before anyone has entered values, to see
// what it creates. A placeholder its parameter refuses (one that does not
// match its pattern) is left out.
func (d *Driver) SampleValues() map[string]any {
	vals := d.DefaultValues()
	for i := range d.Spec.Parameters {
		p := &d.Spec.Parameters[i]
		if _, ok := vals[p.Name]; ok || !p.Required {
			continue
		}
		if v, err := p.Check(p.placeholder()); err == nil {
			vals[p.Name] = v
		}
	}
	return vals
}

// Action returns the action named name, nil when the driver has none.
func (d *Driver) Action(name string) *Action {
	for i := range d.Spec.Actions {
		if d.Spec.Actions[i].Name == name {
			return &d.Spec.Actions[i]
		}
	}
	return nil
}

// Prompt returns the prompt named name of a, nil when it has none.
func (a *Action) Prompt(name string) *Parameter {
	for i := range a.Prompts {
		if a.Prompts[i].Name == name {
			return &a.Prompts[i]
		}
	}
	return nil
}
