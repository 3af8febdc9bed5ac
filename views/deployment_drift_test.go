package views

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDriftSectionShowsEachDriftedFieldAndReadsAgainOnAsk(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, DeploymentDrift(DriftProps{
		Name: "shop", Word: DriftDrifted, Revision: 2, Checked: 3, At: time.Now(),
		Objects: []DriftObjectRow{
			{Object: "Deployment/shop-web", Fields: []DriftFieldRow{{Path: "spec.replicas", Want: "2", Have: "3"}}, FieldsLeftOut: 4},
			{Object: "Service/shop-web", Deleted: true},
		},
		Unchecked: []DriftUncheckedRow{{Object: "ClusterRole/shop", Why: "forbidden"}},
	}))
	require.Equal(t, DriftDrifted, doc.Find(`[data-testid="deployment-drift"]`).AttrOr("data-drift", ""))
	field := doc.Find(`[data-testid="drift-object"][data-object="Deployment/shop-web"] [data-testid="drift-field"][data-path="spec.replicas"]`)
	require.Equal(t, "2", field.Find(`[data-testid="drift-want"]`).Text())
	require.Equal(t, "3", field.Find(`[data-testid="drift-have"]`).Text())
	require.Contains(t, doc.Find(`[data-testid="drift-object"][data-object="Deployment/shop-web"]`).Text(), "4 more fields differ.")
	require.Contains(t, doc.Find(`[data-testid="drift-object"][data-object="Service/shop-web"]`).Text(), "deleted")
	require.Contains(t, doc.Find(`[data-testid="drift-unchecked"]`).Text(), "forbidden")
	require.Equal(t, "/deployments/shop/drift", doc.Find(`[data-testid="drift-check"]`).AttrOr("hx-get", ""))
}

func TestDriftSectionLoadsOnceThePageHasLoaded(t *testing.T) {
	t.Parallel()
	section := renderDoc(t, DeploymentDriftLoading("shop")).Find(`[data-testid="deployment-drift"]`)
	require.Equal(t, "/deployments/shop/drift", section.AttrOr("hx-get", ""))
	require.Equal(t, "load", section.AttrOr("hx-trigger", ""))
}

func TestDriftSectionOffersReconcileAndAcceptToOperatorsOnlyWhenDrifted(t *testing.T) {
	t.Parallel()
	drifted := []DriftObjectRow{{Object: "Deployment/shop-web", Fields: []DriftFieldRow{{Path: "spec.replicas", Want: "2", Have: "3"}}}}
	tests := []struct {
		name    string
		word    string
		viewer  Viewer
		buttons bool
	}{
		{"an operator, Drifted", DriftDrifted, Viewer{CanChange: true, CSRFToken: "tok"}, true},
		{"a read-only user, Drifted", DriftDrifted, Viewer{}, false},
		{"an operator, Synced", DriftSynced, Viewer{CanChange: true, CSRFToken: "tok"}, false},
		{"an operator, Unknown", DriftUnknown, Viewer{CanChange: true, CSRFToken: "tok"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := renderDoc(t, DeploymentDrift(DriftProps{Name: "shop", Word: tt.word, At: time.Now(), Objects: drifted, Viewer: tt.viewer}))
			reconcile, accept := doc.Find(`[data-testid="drift-reconcile"]`), doc.Find(`[data-testid="drift-accept"]`)
			if !tt.buttons {
				require.Zero(t, reconcile.Length()+accept.Length())
				return
			}
			for button, path := range map[string]string{"drift-reconcile": "/deployments/shop/reconcile", "drift-accept": "/deployments/shop/drift/accept"} {
				form := doc.Find(`[data-testid="` + button + `"]`).Closest("form")
				require.Equal(t, path, form.AttrOr("action", ""))
				require.Equal(t, "post", form.AttrOr("method", ""))
				require.NotEmpty(t, form.AttrOr("hx-confirm", ""), "a confirm before it changes anything")
				require.Equal(t, "tok", form.Find(`input[name="`+CSRFField+`"]`).AttrOr("value", ""))
			}
		})
	}
}

func TestDriftSectionCountsAndListsTheAcceptedDifferences(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, DeploymentDrift(DriftProps{Name: "shop", Word: DriftSynced, At: time.Now(),
		Accepted: []DriftObjectRow{{Object: "ConfigMap/shop-web", Fields: []DriftFieldRow{{Path: "data.greeting", Want: `"hi"`, Have: `"hello"`}}}}}))
	accepted := doc.Find(`[data-testid="drift-accepted"]`)
	require.Equal(t, "1", accepted.AttrOr("data-count", ""))
	require.Contains(t, accepted.Find("summary").Text(), "1 accepted differences")
	require.Equal(t, `"hello"`, accepted.Find(`[data-testid="drift-accepted-object"][data-object="ConfigMap/shop-web"] [data-testid="drift-have"]`).Text())
	require.Zero(t, doc.Find(`[data-testid="drift-object"]`).Length(), "an accepted difference is not listed as drift")
}
