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

// kwokConfig returns the multi-document --config file for kwok: its stock node
// and pod stages, with pod-ready and pod-complete skipping action-job pods
// (labelled actionJobLabel=actionJobLabelValue). An action's commands must
// really run: on a simulated node nothing runs them, so their pods stay
// Pending rather than pretend to succeed.
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
