package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api/client"
)

// parameterFlags are the --set and --values flags of a change.
type parameterFlags struct {
	sets   []string
	values string
}

// addParameters gives cmd --set and --values for what.
func addParameters(cmd *cobra.Command, what string) *parameterFlags {
	p := &parameterFlags{}
	cmd.Flags().StringArrayVar(&p.sets, "set", nil, what+" NAME=VALUE (repeatable; true and false are booleans)")
	cmd.Flags().StringVarP(&p.values, "values", "f", "", "a YAML or JSON file of "+what+"s by name (--set wins)")
	return p
}

// read is the flags' values.
func (p *parameterFlags) read() (map[string]any, error) {
	return parameterValues(p.values, p.sets)
}

func (c *CLI) deployCmd() *cobra.Command {
	var version, namespace, team, appVersion string
	cmd := &cobra.Command{
		Use:   "deploy DRIVER NAME",
		Short: "Install a driver as a new deployment NAME",
		Long: "Install a version of DRIVER (its newest without --version) as the deployment NAME, in the\n" +
			"namespace NAME unless --namespace says otherwise, with parameter values from --values and --set.\n" +
			"The install runs as a task: --wait follows it to its end.",
		Args: cobra.ExactArgs(2),
	}
	params := addParameters(cmd, "parameter")
	ch := addChange(cmd)
	cmd.Flags().StringVar(&version, "version", "", "the driver version (default: the newest)")
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "the namespace (default: NAME)")
	cmd.Flags().StringVar(&team, "team", "", "the team the deployment belongs to (default: your one team when you may deploy into one only, else the team default)")
	cmd.Flags().StringVar(&appVersion, "app-version", "", "the application version (default: the driver version's default)")
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		values, err := params.read()
		if err != nil {
			return err
		}
		if version == "" {
			if version, err = newestVersion(ctx, api, args[0]); err != nil {
				return err
			}
		}
		req := client.InstallRequest{Driver: args[0], DriverVersion: version, Name: args[1], Parameters: (*client.ParameterValues)(&values)}
		if namespace != "" {
			req.Namespace = &namespace
		}
		if team != "" {
			req.Team = &team
		}
		if appVersion != "" {
			req.AppVersion = &appVersion
		}
		r, err := api.InstallDeploymentWithResponse(ctx, req)
		if err != nil {
			return err
		}
		return c.queued(ctx, api, cmd, ch, r.JSON202, r.Status())
	})
	return cmd
}

// newestVersion is a driver's newest version in the catalogue.
func newestVersion(ctx context.Context, api *client.ClientWithResponses, driver string) (string, error) {
	r, err := api.GetDriverWithResponse(ctx, driver)
	if err != nil {
		return "", err
	}
	if r.JSON200 == nil {
		return "", unexpected(r.Status())
	}
	if len(r.JSON200.Versions) == 0 {
		return "", fail(ExitNotFound, "The catalogue has no version of driver %s.", driver)
	}
	return r.JSON200.Versions[0], nil
}
