package controlplane

import (
	"bytes"
	"fmt"

	"sigs.k8s.io/kwok/kustomize/stage/node/fast"
	"sigs.k8s.io/kwok/kustomize/stage/node/heartbeat"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
	"sigs.k8s.io/yaml"
)

// Styrmin labels its action Jobs' pods actionJobLabel=actionJobLabelValue
// (kube.ActionJobLabel in the main module, which this module does not import).
const (
	actionJobLabel      = "styrmin.io/action-job"
	actionJobLabelValue = "true"
)

// actionNotRun is the stage that fails an action Job's pod on the simulated
// node at once, saying why, rather than let it pretend to succeed or wait
// for its time limit: nothing runs an action's commands there.
var actionNotRun = fmt.Sprintf(`apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-action-not-run
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.metadata.labels[%q]'
      operator: 'In'
      values: [%q]
    - key: '.status.phase'
      operator: 'NotIn'
      values: ['Failed']
  next:
    statusTemplate: |
      phase: Failed
      reason: NotRun
      message: "the local cluster's node is simulated (this machine cannot run containers), so nothing runs an action's commands"
`, actionJobLabel, actionJobLabelValue)

// kwokConfig returns the multi-document --config file for kwok: its stock node
// and pod stages, with pod-ready and pod-complete skipping action-job pods
// (labelled actionJobLabel=actionJobLabelValue), which actionNotRun fails
// instead. An action's commands must really run, and on a simulated node
// nothing runs them.
func kwokConfig() ([]byte, error) {
	var out bytes.Buffer
	docs := []struct {
		yaml        string
		skipActions bool
	}{
		{fast.DefaultNodeInit, false},
		{heartbeat.DefaultNodeHeartbeat, false},
		{podfast.DefaultPodReady, true},
		{podfast.DefaultPodComplete, true},
		{podfast.DefaultPodDelete, false},
		{actionNotRun, false},
	}
	for _, doc := range docs {
		data := []byte(doc.yaml)
		if doc.skipActions {
			var err error
			if data, err = excludeActionJobs(data); err != nil {
				return nil, err
			}
		}
		out.WriteString("---\n")
		out.Write(data)
		out.WriteString("\n")
	}
	return out.Bytes(), nil
}

func excludeActionJobs(stage []byte) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(stage, &doc); err != nil {
		return nil, fmt.Errorf("kwok stage: %w", err)
	}
	spec, _ := doc["spec"].(map[string]any)
	selector, _ := spec["selector"].(map[string]any)
	if selector == nil {
		return nil, fmt.Errorf("kwok stage %v has no selector", doc["metadata"])
	}
	exprs, _ := selector["matchExpressions"].([]any)
	selector["matchExpressions"] = append(exprs, map[string]any{
		"key":      fmt.Sprintf(".metadata.labels[%q]", actionJobLabel),
		"operator": "NotIn",
		"values":   []any{actionJobLabelValue},
	})
	out, err := yaml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("kwok stage: %w", err)
	}
	return out, nil
}
