package drivers_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/styrmin/styrmin/drivers"
)

func TestLabelSelectorKubernetes(t *testing.T) {
	t.Parallel()
	s := drivers.LabelSelector{
		MatchLabels: map[string]string{"app.kubernetes.io/component": "primary"},
		MatchExpressions: []drivers.LabelSelectorRequirement{
			{Key: "tier", Operator: "In", Values: []string{"db", "cache"}},
			{Key: "canary", Operator: "DoesNotExist"},
		},
	}
	selector, err := s.Kubernetes()
	require.NoError(t, err)
	tests := []struct {
		labels labels.Set
		want   bool
	}{
		{labels.Set{"app.kubernetes.io/component": "primary", "tier": "db"}, true},
		{labels.Set{"app.kubernetes.io/component": "primary", "tier": "web"}, false},
		{labels.Set{"app.kubernetes.io/component": "replica", "tier": "db"}, false},
		{labels.Set{"app.kubernetes.io/component": "primary", "tier": "db", "canary": "yes"}, false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, selector.Matches(tt.labels), "labels %v", tt.labels)
	}

	_, err = drivers.LabelSelector{MatchExpressions: []drivers.LabelSelectorRequirement{{Key: "tier", Operator: "Near"}}}.Kubernetes()
	require.ErrorContains(t, err, "Near")
}
