package controlplane

import (
	"bytes"
	"fmt"

	"sigs.k8s.io/kwok/kustomize/stage/node/fast"
	"sigs.k8s.io/kwok/kustomize/stage/node/heartbeat"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
	"sigs.k8s.io/yaml"

	"github.com/styrmin/styrmin/localkube/actionrunner"
)

// kwokConfig returns the multi-document --config file for kwok: its stock node
// and pod stages, with pod-ready and pod-complete skipping action-job pods
// (labelled actionrunner.Label=actionrunner.LabelValue), whose containers the
// action runner executes on the host.
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
		"key":      fmt.Sprintf(".metadata.labels[%q]", actionrunner.Label),
		"operator": "NotIn",
		"values":   []any{actionrunner.LabelValue},
	})
	out, err := yaml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("kwok stage: %w", err)
	}
	return out, nil
}
