// Package health says how a deployment is doing from what the cluster runs
// of it: one word with its reasons, as Argo CD's gitops-engine assesses each
// object of an application (pkg/health) and keeps the worst.
package health

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/styrmin/styrmin/kube"
)

// Word is a deployment's health.
type Word string

// The words, from the best to the worst but Stopped and Unknown, which
// stand apart.
const (
	// Healthy: every running component has its desired pods ready, none failing.
	Healthy Word = "Healthy"
	// Progressing: the cluster is still getting there (a rollout, pods
	// starting or stopping, a claim waiting for its volume).
	Progressing Word = "Progressing"
	// Missing: the release, or a running component's workload, is not in the cluster.
	Missing Word = "Missing"
	// Degraded: something failed and needs a person (a pod crash-looping or
	// unable to pull its image, a rollout past its deadline, a claim lost).
	Degraded Word = "Degraded"
	// Stopped: every component is stopped and none of its pods is left.
	Stopped Word = "Stopped"
	// Unknown: the cluster could not be read.
	Unknown Word = "Unknown"
)

// Words are every word, in the order of their rank (Worse).
var Words = []Word{Healthy, Stopped, Progressing, Missing, Degraded, Unknown}

// rank orders the words: the worst of a deployment's objects is its word.
func (w Word) rank() int {
	for i, v := range Words {
		if v == w {
			return i
		}
	}
	return len(Words)
}

// Assessment is a deployment's health with the reasons of its word (none
// when Healthy or Stopped).
type Assessment struct {
	Word    Word
	Reasons []string
}

// Component is a driver's component with the workloads the cluster runs of it.
type Component struct {
	Name string
	// Stopped is set when Styrmin stopped it (its workloads at 0 replicas).
	Stopped   bool
	Workloads []kube.Workload
}

// Input is what the assessment reads: the deployment's components, the
// pods, and the claims of its release.
type Input struct {
	// ReleaseMissing is set when Helm has no release of a deployment that
	// Styrmin installed.
	ReleaseMissing bool
	// Busy is set while a task holds the deployment: a workload it has not
	// created yet is Progressing, not Missing.
	Busy       bool
	Components []Component
	Pods       []kube.Pod
	PVCs       []kube.PVC
}

// waitingFailures are the reasons a container waits for that will not pass
// by themselves: the pod is Degraded (gitops-engine: a waiting reason that
// starts with "Err" or ends with "BackOff", and the configuration errors).
var waitingFailures = map[string]bool{
	"CreateContainerConfigError": true, "CreateContainerError": true, "InvalidImageName": true,
	"RunContainerError": true, "PreCreateHookError": true, "PostStartHookError": true,
}

// terminationFailures are the reasons of a container's end that make a
// pod that restarts and is not ready Degraded.
var terminationFailures = map[string]bool{"OOMKilled": true, "Error": true, "ContainerCannotRun": true, "DeadlineExceeded": true}

// Assess computes the health of a deployment from in.
func Assess(in Input) Assessment {
	if in.ReleaseMissing {
		return Assessment{Word: Missing, Reasons: []string{"Helm has no release of this deployment"}}
	}
	a := Assessment{Word: Healthy}
	running := map[string]bool{} // "Kind/name" of the workloads of running components
	stopped := len(in.Components) > 0
	for _, c := range in.Components {
		stopped = stopped && c.Stopped
		if c.Stopped {
			continue
		}
		if len(c.Workloads) == 0 {
			a.add(missingOrBusy(in.Busy), fmt.Sprintf("component %s: no Deployment or StatefulSet of the release matches it", c.Name))
		}
		for _, w := range c.Workloads {
			running[w.Kind+"/"+w.Name] = true
			a.workload(w)
		}
	}
	for _, p := range in.Pods {
		if running[p.Workload] {
			a.pod(p)
		} else if stopped {
			a.add(Progressing, fmt.Sprintf("pod %s: still stopping", p.Name))
		}
	}
	for _, c := range in.PVCs {
		switch c.Phase {
		case "Lost":
			a.add(Degraded, fmt.Sprintf("claim %s: its volume is lost", c.Name))
		case "Pending":
			a.add(Progressing, fmt.Sprintf("claim %s: waiting for a volume", c.Name))
		}
	}
	if stopped && a.Word == Healthy {
		a.Word = Stopped
	}
	return a
}

// missingOrBusy is Missing, or Progressing while a task may still create it.
func missingOrBusy(busy bool) Word {
	if busy {
		return Progressing
	}
	return Missing
}

// workload assesses a workload of a running component.
func (a *Assessment) workload(w kube.Workload) {
	id := w.Kind + " " + w.Name
	switch {
	case w.Failed != "":
		a.add(Degraded, fmt.Sprintf("%s: %s", id, w.Failed))
	case w.Waiting != "":
		a.add(Progressing, w.Waiting)
	case w.AvailableReplicas < w.Replicas:
		a.add(Progressing, fmt.Sprintf("%s: %d of %d replicas available", id, w.AvailableReplicas, w.Replicas))
	}
}

// pod assesses a pod of a running component.
func (a *Assessment) pod(p kube.Pod) {
	id := "pod " + p.Name
	switch {
	case p.Phase == "Failed":
		a.add(Degraded, fmt.Sprintf("%s: failed (%s)", id, cmp.Or(p.LastTermination, "no reason given")))
	case p.Waiting != "" && (waitingFailures[p.Waiting] || strings.HasPrefix(p.Waiting, "Err") || strings.HasSuffix(p.Waiting, "BackOff")):
		a.add(Degraded, fmt.Sprintf("%s: %s%s", id, p.Waiting, lastEnd(p)))
	case terminationFailures[p.LastTermination] && p.Restarts > 0 && p.Ready < p.Containers:
		a.add(Degraded, fmt.Sprintf("%s: restarted %d times, last ended %s", id, p.Restarts, p.LastTermination))
	case p.Phase == "Pending":
		a.add(Progressing, fmt.Sprintf("%s: pending%s", id, orEmpty(p.Waiting, " (%s)")))
	}
}

// lastEnd says how the pod's container last ended, "" when it never did.
func lastEnd(p kube.Pod) string {
	if p.LastTermination == "" {
		return ""
	}
	return fmt.Sprintf(", restarted %d times, last ended %s", p.Restarts, p.LastTermination)
}

// orEmpty formats s with format, "" when s is.
func orEmpty(s, format string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf(format, s)
}

// add takes a reason for word: the assessment keeps the worst word and the
// reasons of that word only, so that they say why it is that word.
func (a *Assessment) add(w Word, reason string) {
	switch {
	case w.rank() > a.Word.rank():
		a.Word, a.Reasons = w, []string{reason}
	case w == a.Word:
		a.Reasons = append(a.Reasons, reason)
	}
}
