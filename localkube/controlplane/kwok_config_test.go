package controlplane

import (
	"bytes"
	"context"
	"testing"

	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	"sigs.k8s.io/kwok/pkg/utils/expression"
	"sigs.k8s.io/yaml"
)

type stageDoc struct {
	Metadata struct{ Name string }
	Spec     struct {
		Selector struct {
			MatchExpressions []struct {
				Key      string
				Operator string
				Values   []string
			}
		}
	}
}

// matches evaluates a stage's selector the way kwok does.
func (s stageDoc) matches(t *testing.T, pod map[string]any) bool {
	t.Helper()
	for _, e := range s.Spec.Selector.MatchExpressions {
		req, err := expression.NewRequirement(e.Key, internalversion.SelectorOperator(e.Operator), e.Values)
		if err != nil {
			t.Fatalf("stage %s: %v", s.Metadata.Name, err)
		}
		ok, err := req.Matches(context.Background(), pod)
		if err != nil {
			t.Fatalf("stage %s: %v", s.Metadata.Name, err)
		}
		if !ok {
			return false
		}
	}
	return true
}

func TestKwokConfigFailsActionJobPodsInsteadOfSimulatingThem(t *testing.T) {
	config, err := kwokConfig()
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string]stageDoc{}
	for _, doc := range bytes.Split(config, []byte("\n---\n")) {
		var s stageDoc
		if err := yaml.Unmarshal(bytes.TrimPrefix(doc, []byte("---\n")), &s); err != nil {
			t.Fatal(err)
		}
		stages[s.Metadata.Name] = s
	}
	for _, name := range []string{"node-initialize", "node-heartbeat", "pod-ready", "pod-complete", "pod-delete", "pod-action-not-run"} {
		if _, ok := stages[name]; !ok {
			t.Fatalf("stage %s missing from the kwok config", name)
		}
	}
	pod := func(phase string, labels map[string]any, owner string) map[string]any {
		return map[string]any{
			"metadata": map[string]any{"labels": labels, "ownerReferences": []any{map[string]any{"kind": owner}}},
			"status":   map[string]any{"phase": phase},
		}
	}
	action := map[string]any{actionJobLabel: actionJobLabelValue}
	tests := []struct {
		stage string
		pod   map[string]any
		want  bool
	}{
		{"pod-ready", pod("Pending", nil, "ReplicaSet"), true},
		{"pod-ready", pod("Pending", map[string]any{"app": "web"}, "ReplicaSet"), true},
		{"pod-ready", pod("Pending", action, "Job"), false},
		{"pod-complete", pod("Running", nil, "Job"), true},
		{"pod-complete", pod("Running", action, "Job"), false},
		{"pod-complete", pod("Running", map[string]any{actionJobLabel: "false"}, "Job"), true},
		{"pod-action-not-run", pod("Pending", action, "Job"), true},
		{"pod-action-not-run", pod("Failed", action, "Job"), false},
		{"pod-action-not-run", pod("Pending", nil, "Job"), false},
	}
	for _, tt := range tests {
		if got := stages[tt.stage].matches(t, tt.pod); got != tt.want {
			t.Errorf("stage %s on %v: matches %v, want %v", tt.stage, tt.pod, got, tt.want)
		}
	}
}
