package api

import (
	"fmt"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
)

// apiInputsOf is a task's typed inputs as the API shows them: the schema of
// its kind in api/openapi.yaml's TaskInputs, its lists and maps empty, never
// null.
func apiInputsOf(kind string, in deployment.TaskInputs) (oapi.TaskInputs, error) {
	var out oapi.TaskInputs
	var err error
	switch in := in.(type) {
	case *deployment.InstallInputs:
		err = out.FromInstallInputs(oapi.InstallInputs{DriverVersion: in.DriverVersion, AppVersion: in.AppVersion,
			Namespace: in.Namespace, Parameters: orEmpty(in.Parameters), Prompts: orEmpty(in.Prompts)})
	case *deployment.UpgradeInputs:
		err = out.FromUpgradeInputs(oapi.UpgradeInputs{FromDriverVersion: in.FromDriverVersion, DriverVersion: in.DriverVersion,
			FromAppVersion: in.FromAppVersion, AppVersion: in.AppVersion, Parameters: orEmpty(in.Parameters),
			Changed: listOrEmpty(in.Changed), Prompts: orEmpty(in.Prompts)})
	case *deployment.RollbackInputs:
		err = out.FromRollbackInputs(oapi.RollbackInputs{Revision: in.Revision, DriverVersion: in.DriverVersion, AppVersion: in.AppVersion})
	case *deployment.ComponentsInputs:
		if kind == deployment.KindStop {
			err = out.FromStopInputs(oapi.StopInputs{Components: listOrEmpty(in.Components)})
		} else {
			err = out.FromStartInputs(oapi.StartInputs{Components: listOrEmpty(in.Components)})
		}
	case *deployment.DeleteInputs:
		err = out.FromDeleteInputs(oapi.DeleteInputs{Prompts: orEmpty(in.Prompts)})
	case *deployment.ActionInputs:
		err = out.FromActionInputs(oapi.ActionInputs{Action: in.Action, Prompts: orEmpty(in.Prompts)})
	case *deployment.ReconcileInputs:
		err = out.FromReconcileInputs(oapi.ReconcileInputs{})
	default:
		err = fmt.Errorf("no schema for inputs of type %T", in)
	}
	if err != nil {
		return out, fmt.Errorf("api: inputs of a %s task: %w", kind, err)
	}
	return out, nil
}

// orEmpty is m, or an empty map for nil.
func orEmpty[M ~map[string]V, V any](m M) M {
	if m == nil {
		return M{}
	}
	return m
}

// listOrEmpty is l, or an empty list for nil.
func listOrEmpty(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
