// Package clitest runs the client's commands (package cli) in tests as the
// styrmin binary does: under a root command, with no terminal, within five
// minutes.
package clitest

import (
	"bytes"
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/cli"
)

// Result is what a command printed and its exit code.
type Result struct {
	// Out is what it printed on standard output.
	Out string
	// Err is what it printed on standard error, then its error's message.
	Err string
	// Code is the exit code the binary would exit with (cli.ExitCode).
	Code int
}

// Run runs c's command args with stdin as its input.
func Run(c *cli.CLI, stdin string, args ...string) Result {
	root := &cobra.Command{Use: "styrmin", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(c.Commands()...)
	var out, errOut bytes.Buffer
	root.SetArgs(args)
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&errOut)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	err := root.ExecuteContext(ctx)
	if err != nil {
		errOut.WriteString(err.Error())
	}
	return Result{Out: out.String(), Err: errOut.String(), Code: cli.ExitCode(err)}
}
