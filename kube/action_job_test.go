package kube

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLocalClusterRunsTheActionJobsStyrminLabels(t *testing.T) {
	t.Parallel()
	// localkube is a separate module that cannot import this one: read its constants from the source.
	consts := stringConsts(t, "../localkube/actionrunner/runner.go")
	require.Equal(t, ActionJobLabel, consts["Label"], "actionrunner.Label")
	require.Equal(t, ActionJobLabelValue, consts["LabelValue"], "actionrunner.LabelValue")
}

// stringConsts returns the string constants declared in a Go file, by name.
func stringConsts(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	require.NoError(t, err)
	out := map[string]string{}
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					out[name.Name], err = strconv.Unquote(lit.Value)
					require.NoError(t, err)
				}
			}
		}
	}
	return out
}
