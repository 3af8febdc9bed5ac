package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/drivers"
)

// runDriverCmd runs `styrmin driver ARGS...` and returns its output, errors and result.
func runDriverCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := newDriverCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true // as the root command does
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestDriverLint(t *testing.T) {
	t.Parallel()
	const good = "../../drivers/testdata/good"
	const bad = "../../drivers/testdata/lint/values-template"

	out, errOut, err := runDriverCmd(t, "lint", good, good+"/driver.styrmin.yml")
	require.NoError(t, err)
	require.Empty(t, out)
	require.Empty(t, errOut)

	out, _, err = runDriverCmd(t, "lint", good, bad)
	require.ErrorIs(t, err, errSilent, "exit status 1")
	require.Equal(t, bad+`/driver.styrmin.yml:17:36: spec.helm.main.values: line 5 of the template: map has no entry for key "pasword"; declare it in spec.parameters or fix the name; did you mean "password"?`+"\n", out)

	out, _, err = runDriverCmd(t, "lint", "--json", bad)
	require.ErrorIs(t, err, errSilent)
	var ps []drivers.Problem
	require.NoError(t, json.Unmarshal([]byte(out), &ps))
	require.Equal(t, []drivers.Problem{{
		File: bad + "/driver.styrmin.yml", Line: 17, Column: 36, Field: "spec.helm.main.values",
		Message: `line 5 of the template: map has no entry for key "pasword"; declare it in spec.parameters or fix the name; did you mean "password"?`,
	}}, ps)

	out, _, err = runDriverCmd(t, "lint", "--json", good)
	require.NoError(t, err)
	require.Equal(t, "[]\n", out)

	_, errOut, err = runDriverCmd(t, "lint", "no/such/bundle")
	require.ErrorIs(t, err, errSilent)
	require.Contains(t, errOut, "no/such/bundle")
	require.Contains(t, errOut, "give a bundle folder or its driver.styrmin.yml")
}

func TestDriverSchema(t *testing.T) {
	t.Parallel()
	out, _, err := runDriverCmd(t, "schema")
	require.NoError(t, err)
	want, err := os.ReadFile("../../docs/driver.schema.json")
	require.NoError(t, err)
	require.Equal(t, string(want), out)
}

func TestDocsDriverAPI(t *testing.T) {
	t.Parallel()
	file := t.TempDir() + "/driver-api.md"
	cmd := newDocsCmd()
	cmd.SetArgs([]string{"driver-api", "--out", file})
	require.NoError(t, cmd.Execute())
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	want, err := os.ReadFile("../../docs/driver-api.md")
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
	require.True(t, strings.HasPrefix(string(got), "# Driver API reference\n"))
}
