package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// formats are the values of --output.
var formats = []string{"table", "json", "yaml"}

// outputFormat is the --output flag of a read: table, json or yaml.
type outputFormat string

// String returns the format.
func (o *outputFormat) String() string { return string(*o) }

// Set takes one of formats.
func (o *outputFormat) Set(v string) error {
	if !slices.Contains(formats, v) {
		return fmt.Errorf("%q is not an output format: use %s", v, strings.Join(formats, ", "))
	}
	*o = outputFormat(v)
	return nil
}

// Type names the flag's values in help.
func (o *outputFormat) Type() string { return "table|json|yaml" }

// addOutput gives cmd its --output flag (-o), table by default.
func addOutput(cmd *cobra.Command) *outputFormat {
	o := outputFormat("table")
	cmd.Flags().VarP(&o, "output", "o", "how to print the answer: table, json or yaml")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	return &o
}

// print writes v as JSON or YAML (the API's own field names), or as the
// table that table writes.
func (o *outputFormat) print(w io.Writer, v any, table func(t *tabwriter.Writer)) error {
	switch *o {
	case "json":
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("cli: encode JSON: %w", err)
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	case "yaml":
		data, err := yaml.Marshal(v)
		if err != nil {
			return fmt.Errorf("cli: encode YAML: %w", err)
		}
		_, err = w.Write(data)
		return err
	}
	t := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	table(t)
	return t.Flush()
}

// row writes the cells of one table row.
func row(t *tabwriter.Writer, cells ...any) {
	for i, c := range cells {
		if i > 0 {
			fmt.Fprint(t, "\t")
		}
		fmt.Fprint(t, c)
	}
	fmt.Fprintln(t)
}
