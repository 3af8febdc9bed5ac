package drivers

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"text/template"
	tparse "text/template/parse"
)

// maxRangeCount is the largest number a values template may range over.
const maxRangeCount = 10_000

// rangeGuardFunc names the function guardTemplate inserts in range pipelines.
const rangeGuardFunc = "styrminRangeGuard"

// guardTemplate bounds the work of a values template: it refuses template
// calls (which could recurse) and makes every range over a number fail above
// maxRangeCount, so a template cannot run for a long time.
func guardTemplate(tmpl *template.Template) error {
	tmpl.Funcs(template.FuncMap{rangeGuardFunc: rangeGuard})
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
		case *tparse.IfNode:
			branch = &n.BranchNode
		case *tparse.WithNode:
			branch = &n.BranchNode
		case *tparse.RangeNode:
			branch = &n.BranchNode
			guard := &tparse.CommandNode{NodeType: tparse.NodeCommand, Pos: n.Pipe.Pos,
				Args: []tparse.Node{tparse.NewIdentifier(rangeGuardFunc).SetTree(tree).SetPos(n.Pipe.Pos)}}
			n.Pipe.Cmds = append(n.Pipe.Cmds, guard)
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

// rangeGuard passes v on unless it is a number above maxRangeCount.
func rangeGuard(v any) (any, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if rv.Int() > maxRangeCount {
			return nil, fmt.Errorf("range over %d numbers; at most %d are allowed", rv.Int(), maxRangeCount)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if rv.Uint() > maxRangeCount {
			return nil, fmt.Errorf("range over %d numbers; at most %d are allowed", rv.Uint(), maxRangeCount)
		}
	}
	return v, nil
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
