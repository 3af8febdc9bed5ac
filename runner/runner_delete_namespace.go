package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/kube"
)

// removeNamespace deletes the namespace Styrmin created for the deployment,
// as the delete's last step, only when nothing is left in it that would be
// lost with it: no other live deployment of Styrmin's (whose release may be
// missing just now), and no object but what goes with a namespace anyway
// (kube.Client.NamespaceLeftovers) and what Styrmin made for this deployment.
// Otherwise it leaves the namespace and the step's warning says what keeps
// it; the other deployments then count as having created it, so the last of
// them to be deleted removes it.
func (j *taskRun) removeNamespace(ctx context.Context) error {
	ns := j.row.Namespace
	return j.run.Step(ctx, deployment.StepNamespace, "Delete namespace "+ns, func(ctx context.Context, st *executor.Step) error {
		left, err := j.cluster.Kube.NamespaceLeftovers(ctx, ns, j.madeForDeployment)
		if err != nil {
			return err
		}
		// Read after the cluster, just before deleting: an install queued
		// meanwhile has its row by then.
		others, err := j.s.q.HandOverCreatedNamespace(ctx, db.HandOverCreatedNamespaceParams{Namespace: ns, ID: j.row.ID})
		if err != nil {
			return fmt.Errorf("runner: the other deployments in namespace %s: %w", ns, err)
		}
		if len(others) > 0 || !left.Empty() {
			st.Warn("%s", namespaceKept(ns, others, left))
			return nil
		}
		if err := j.cluster.Kube.DeleteNamespace(ctx, ns); err != nil {
			return err
		}
		st.Say("Styrmin created it for this deployment and nothing else is left in it; Kubernetes is removing it.")
		return nil
	})
}

// madeForDeployment reports whether Styrmin made l for this deployment (the
// pod runtime's ServiceAccount, an action run's pod and Secret): it goes
// with the namespace.
func (j *taskRun) madeForDeployment(l kube.Leftover) bool {
	if l.Meta.Labels[kube.ManagedByLabel] != kube.ManagedBy {
		return false
	}
	for k, v := range j.owner.Labels() {
		if l.Meta.Labels[k] != v {
			return false
		}
	}
	return true
}

// keptNames is how many of the other deployments namespaceKept names.
const keptNames = 3

// namespaceKept says why namespace ns is kept: the other live deployments
// in it, and what left holds.
func namespaceKept(ns string, others []string, left kube.Leftovers) string {
	others = slices.Sorted(slices.Values(others))
	var clauses []string
	if n := len(others); n > 0 {
		names := strings.Join(others[:min(n, keptNames)], ", ")
		switch {
		case n == 1:
			clauses = append(clauses, "deployment "+names+" also deploys into it")
		case n <= keptNames:
			clauses = append(clauses, fmt.Sprintf("deployments %s also deploy into it", names))
		default:
			clauses = append(clauses, fmt.Sprintf("%d other deployments (%s, …) deploy into it", n, names))
		}
	}
	note := func(release string) string {
		if slices.Contains(others, release) {
			return "of deployment " + release
		}
		return "not this Styrmin's"
	}
	if held := left.Describe(note); held != "" {
		clauses = append(clauses, held)
	}
	next := "Remove what is left and then the namespace yourself, if none of it is needed."
	if len(others) > 0 {
		next = "The last of those deployments to be deleted removes it, if nothing else is left in it then."
	}
	if len(left.Unchecked) > 0 {
		next += " To let Styrmin check a namespace in full, give it list on every type (see Permissions in the operations guide)."
	}
	return fmt.Sprintf("Namespace %s is kept: %s. %s", ns, strings.Join(clauses, "; "), next)
}
