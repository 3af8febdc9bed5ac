package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/styrmin/styrmin/chartsecret"
)

func newChartSecretCmd() *cobra.Command {
	spec := chartsecret.Spec{Labels: map[string]string{"app.kubernetes.io/name": "styrmin", "app.kubernetes.io/component": "keys"}}
	cmd := &cobra.Command{
		Use:   "chart-secret --name NAME",
		Short: "Create the Helm chart's Secret of generated keys when it is missing (the chart's pre-install hook; runs in the cluster)",
		Long: `Creates the Secret NAME in the pod's namespace holding a new secret-key and
admin-password (and, with --postgresql-host, the evaluation PostgreSQL's
postgresql-password and database-url) when it is missing, and adds only the
keys it lacks when it exists: a value already there is never changed. It
talks to the cluster with the pod's ServiceAccount.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := rest.InClusterConfig()
			if err != nil {
				return fmt.Errorf("chart-secret runs in a pod of the cluster: %w", err)
			}
			client, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				return fmt.Errorf("chart-secret: cluster client: %w", err)
			}
			added, err := chartsecret.Ensure(cmd.Context(), client, spec)
			if err != nil {
				return err
			}
			if len(added) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "Secret %s/%s holds every key; nothing changed.\n", spec.Namespace, spec.Name)
			} else {
				fmt.Fprintf(cmd.OutOrStdout(), "Secret %s/%s: added %v.\n", spec.Namespace, spec.Name, added)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&spec.Name, "name", "", "name of the Secret")
	f.StringVar(&spec.Namespace, "namespace", os.Getenv("POD_NAMESPACE"), "namespace of the Secret (env POD_NAMESPACE)")
	f.StringVar(&spec.PostgreSQLHost, "postgresql-host", "", "the evaluation PostgreSQL's Service: also make its password and the database URL on it")
	return cmd
}
