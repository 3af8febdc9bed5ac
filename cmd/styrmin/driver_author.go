package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/authoring"
	"github.com/styrmin/styrmin/drivertrial"
)

// newDriverNewCmd is `styrmin driver new`.
func newDriverNewCmd() *cobra.Command {
	var from, dir string
	cmd := &cobra.Command{
		Use:   "new NAME",
		Short: "Create a driver folder that lints, renders, tests and deploys as it stands",
		Long: "Create the folder NAME (in --dir) holding a new driver made from a bundled one (--from,\n" +
			"hello-web by default): driver.styrmin.yml with a parameter of each common type, a small chart,\n" +
			"actions.py with a post-install check and manual actions, tests/ for `styrmin driver test`, and\n" +
			"a README. NAME is a DNS label of at most 20 characters.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dest, err := authoring.New(cmd.Context(), dir, args[0], from)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "created %s from %s\nnext: styrmin driver render %s && styrmin driver test %s\n", dest, from, dest, dest)
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", authoring.DefaultTemplate, "the bundled driver to start from")
	cmd.Flags().StringVar(&dir, "dir", ".", "the folder to create the driver folder in")
	return cmd
}

// newDriverRenderCmd is `styrmin driver render`.
func newDriverRenderCmd() *cobra.Command {
	var opts authoring.RenderOptions
	var output string
	cmd := &cobra.Command{
		Use:   "render PATH",
		Short: "Show the values and manifests an install of a driver folder would render, offline",
		Long: "Render the driver folder PATH as an install does (its values template, then its chart), for the\n" +
			"release demo in namespace demo, without a cluster: the driver's defaults (placeholders for\n" +
			"required values without one, secrets included) under --values and --set. Prints the values, the\n" +
			"manifests and what the chart creates beyond its namespace, which an admin must approve.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return styrmin.Errorf(styrmin.EINVALID, "--output %q: use text or json.", output)
			}
			r, err := authoring.Render(cmd.Context(), args[0], opts)
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			return printRendered(cmd.OutOrStdout(), r)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&opts.Sets, "set", nil, "NAME=VALUE: a parameter's value, as its form field reads it (repeatable)")
	f.StringVarP(&opts.ValuesFile, "values", "f", "", "a YAML file mapping parameter names to values")
	f.StringVar(&opts.Version, "version", "", "the application version (the chart's appVersion by default)")
	f.StringVarP(&output, "output", "o", "text", "text or json")
	return cmd
}

// printRendered writes a render as YAML documents and comment lines.
func printRendered(out io.Writer, r *authoring.Rendered) error {
	values, err := yaml.Marshal(r.Values)
	if err != nil {
		return fmt.Errorf("driver render: %w", err)
	}
	fmt.Fprintf(out, "# The values template's output (the chart's values)\n%s", values)
	fmt.Fprintf(out, "# The chart's manifests\n%s", r.Manifest)
	if r.Permissions.Empty() {
		fmt.Fprintln(out, "# Permissions: nothing beyond the release's namespace; no admin approval needed")
		return nil
	}
	fmt.Fprintln(out, "# Permissions an admin must approve for this driver version:")
	for _, line := range r.Permissions.Lines() {
		fmt.Fprintf(out, "#   %s\n", line)
	}
	return nil
}

// newDriverPackageCmd is `styrmin driver package`.
func newDriverPackageCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "package PATH",
		Short: "Pack a driver folder as a bundle archive to import or upload",
		Long: "Pack the driver folder PATH as NAME-VERSION.tar.gz in --dir: every file the catalogue stores\n" +
			"(not tests/), as `styrmin driver import` and the upload form take it. The same files always pack\n" +
			"to the same bytes. Prints the bundle's digest, which the catalogue records at import, and the\n" +
			"archive's sha256.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := authoring.Package(cmd.Context(), args[0], dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "packed %s %s into %s\nbundle digest:  %s\narchive sha256: %s\n", p.Name, p.Version, p.Path, p.Digest, p.SHA256)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "the folder to write the archive in")
	return cmd
}

// newDriverTestCmd is `styrmin driver test`.
func newDriverTestCmd() *cobra.Command {
	var timeout time.Duration
	var cluster bool
	trial := drivertrial.Options{}
	cmd := &cobra.Command{
		Use:   "test PATH",
		Short: "Run a driver folder's Python tests against a fake Styrmin, or deploy it on a cluster (--cluster)",
		Long: "Run the unittest files of PATH/tests with the styrmin package on the import path; its\n" +
			"styrmin.testing module runs actions against a fake of the action primitives that records every\n" +
			"call. The tests run as actions run (the same sandbox when run as root), stopped at --timeout.\n" +
			"Exits with 1 when a test fails.\n\n" +
			"With --cluster, deploy PATH instead on the cluster of --kubeconfig (default KUBECONFIG) into a\n" +
			"new throw-away namespace (--namespace, default styrmin-test-<digits>), through a private Styrmin\n" +
			"started for the run (its own PostgreSQL; driver actions run as local python3 processes calling\n" +
			"it back on 127.0.0.1): install with the driver's defaults under --set and --values, every manual\n" +
			"action with its default prompts, an upgrade to the same version, stop, start and delete. Each\n" +
			"step is reported as the deployment page shows its task; the first that fails ends the run with\n" +
			"exit code 1 and its reason. The namespace is deleted at the end (with --keep, a failed run\n" +
			"leaves it as the failure left it), the private Styrmin stopped and removed. The API server's\n" +
			"warnings (such as what Pod Security's restricted level would refuse) go to the error output.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cluster {
				trial.Path, trial.Out = args[0], cmd.OutOrStdout()
				if cmd.Flags().Changed("timeout") {
					trial.Timeout = timeout
				}
				// The API server's warnings (such as Pod Security's) once each, on the error output.
				rest.SetDefaultWarningHandler(rest.NewWarningWriter(cmd.ErrOrStderr(), rest.WarningWriterOptions{Deduplicate: true}))
				defer rest.SetDefaultWarningHandler(rest.WarningLogger{}) // client-go's default again
				return drivertrial.Run(cmd.Context(), trial)
			}
			if trialFlags := changedFlags(cmd, "kubeconfig", "namespace", "keep", "set", "values"); len(trialFlags) > 0 {
				return styrmin.Errorf(styrmin.EINVALID, "--%s: only with --cluster.", trialFlags[0])
			}
			passed, err := authoring.Test(cmd.Context(), args[0], timeout, cmd.OutOrStdout())
			if err != nil {
				return err
			}
			if !passed {
				return errSilent
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.DurationVar(&timeout, "timeout", actions.DefaultTestTimeout, fmt.Sprintf("stop the tests after this long (with --cluster: the steps, %s by default)", drivertrial.DefaultTimeout))
	f.BoolVar(&cluster, "cluster", false, "deploy the driver on a cluster and run its every step")
	f.StringVar(&trial.Kubeconfig, "kubeconfig", "", "with --cluster: the cluster's kubeconfig (default KUBECONFIG)")
	f.StringVar(&trial.Namespace, "namespace", "", "with --cluster: the throw-away namespace, which must not exist (default styrmin-test-<digits>)")
	f.BoolVar(&trial.Keep, "keep", false, "with --cluster: when a step fails, keep the deployment and its namespace")
	f.StringArrayVar(&trial.Sets, "set", nil, "with --cluster: NAME=VALUE, a parameter's value as its form field reads it (repeatable)")
	f.StringVarP(&trial.ValuesFile, "values", "f", "", "with --cluster: a YAML file mapping parameter names to values")
	return cmd
}

// changedFlags are the names among names of the flags cmd was given.
func changedFlags(cmd *cobra.Command, names ...string) []string {
	var out []string
	for _, n := range names {
		if cmd.Flags().Changed(n) {
			out = append(out, n)
		}
	}
	return out
}
