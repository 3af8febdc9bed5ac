package drivers

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// typesSource is the source of the contract's types; its doc comments are the
// descriptions of the reference and the JSON Schema.
//
//go:embed driver.go
var typesSource string

// typeDocs maps "Type" and "Type.Field" to their doc comments, as single lines.
type typeDocs map[string]string

// readTypeDocs collects the doc comments of the types in typesSource.
func readTypeDocs() (typeDocs, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "driver.go", typesSource, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("read type docs: %w", err)
	}
	docs := typeDocs{}
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.TYPE {
			continue
		}
		for _, spec := range gen.Specs {
			ts := spec.(*ast.TypeSpec) // a type declaration holds only type specs
			docs[ts.Name.Name] = oneLine(gen.Doc.Text())
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			for _, field := range st.Fields.List {
				for _, name := range field.Names {
					docs[ts.Name.Name+"."+name.Name] = oneLine(field.Doc.Text())
				}
			}
		}
	}
	return docs, nil
}

// oneLine joins the lines of a comment with spaces.
func oneLine(text string) string {
	return strings.Join(strings.Fields(text), " ")
}
