package drivers

import (
	"strconv"
	"strings"
	"text/template"
	tparse "text/template/parse"
)

// Names of the functions guardTemplate inserts into a values template.
const (
	iterationGuardFunc = "styrminIteration"
	outputGuardFunc    = "styrminOutput"
)

// guardTemplate puts a values template under budget b: it refuses template
// calls (which could recurse), starts every range body with a call that spends
// one iteration, and ends every printing action with a call that refuses a
// value too large to print, before fmt builds its text.
func guardTemplate(tmpl *template.Template, b *budget) error {
	tmpl.Funcs(template.FuncMap{
		iterationGuardFunc: func() (string, error) { return "", b.iterate() },
		outputGuardFunc:    func(v any) (any, error) { return v, b.fits(printedSize(v, b.bytes)) },
	})
	for _, t := range tmpl.Templates() {
		if t.Tree == nil {
			continue
		}
		if err := guardList(t.Tree, t.Tree.Root); err != nil {
			return err
		}
	}
	return nil
}

// guardList guards the nodes of a list and of the lists nested in them.
func guardList(tree *tparse.Tree, list *tparse.ListNode) error {
	if list == nil {
		return nil
	}
	for _, n := range list.Nodes {
		var branch *tparse.BranchNode
		switch n := n.(type) {
		case *tparse.TemplateNode:
			loc, _ := tree.ErrorContext(n)
			return locatedError(loc, "{{template}} calls are not allowed in a values template; write the YAML out")
		case *tparse.ActionNode:
			if len(n.Pipe.Decl) == 0 {
				n.Pipe.Cmds = append(n.Pipe.Cmds, guardCommand(tree, outputGuardFunc, n.Pos))
			}
		case *tparse.IfNode:
			branch = &n.BranchNode
		case *tparse.WithNode:
			branch = &n.BranchNode
		case *tparse.RangeNode:
			branch = &n.BranchNode
			if err := guardList(tree, branch.List); err != nil {
				return err
			}
			tick := &tparse.ActionNode{NodeType: tparse.NodeAction, Pos: n.Pos, Line: n.Line,
				Pipe: &tparse.PipeNode{NodeType: tparse.NodePipe, Pos: n.Pos, Line: n.Line,
					Cmds: []*tparse.CommandNode{guardCommand(tree, iterationGuardFunc, n.Pos)}}}
			branch.List.Nodes = append([]tparse.Node{tick}, branch.List.Nodes...)
			if err := guardList(tree, branch.ElseList); err != nil {
				return err
			}
			continue
		}
		if branch == nil {
			continue
		}
		if err := guardList(tree, branch.List); err != nil {
			return err
		}
		if err := guardList(tree, branch.ElseList); err != nil {
			return err
		}
	}
	return nil
}

// guardCommand is a pipeline command that calls the guard function name.
func guardCommand(tree *tparse.Tree, name string, pos tparse.Pos) *tparse.CommandNode {
	return &tparse.CommandNode{NodeType: tparse.NodeCommand, Pos: pos,
		Args: []tparse.Node{tparse.NewIdentifier(name).SetTree(tree).SetPos(pos)}}
}

// locatedError builds a TemplateError from a text/template location "name:line:col".
func locatedError(loc, msg string) *TemplateError {
	parts := strings.Split(loc, ":")
	te := &TemplateError{Message: msg}
	if len(parts) == 3 {
		te.Line, _ = strconv.Atoi(parts[1])   // 0 when not a number
		te.Column, _ = strconv.Atoi(parts[2]) // 0 when not a number
	}
	return te
}
