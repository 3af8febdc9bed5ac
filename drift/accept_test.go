package drift_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/drift"
)

// accepting records each diff's object and fingerprint, as Styrmin stores them.
func accepting(diffs ...*drift.ObjectDiff) []drift.Acceptance {
	var out []drift.Acceptance
	for _, d := range diffs {
		out = append(out, drift.Acceptance{Ref: d.Ref, Fingerprint: d.Fingerprint})
	}
	return out
}

func TestAcceptHidesExactlyTheAcceptedDifferences(t *testing.T) {
	t.Parallel()
	objs := objects(t)
	web, cm := objs["Deployment"], objs["ConfigMap"]
	scaled := drift.Compare(web, live(5, "hello:1", ""), drift.Options{})
	edited := drift.Compare(cm, map[string]any{"metadata": map[string]any{"name": "settings"}, "data": map[string]any{"greeting": "hello"}}, drift.Options{})
	acceptances := accepting(scaled)

	open, accepted := drift.Accept([]drift.ObjectDiff{*scaled, *edited}, acceptances)
	require.Equal(t, []drift.ObjectDiff{*edited}, open, "a difference nobody accepted stays open")
	require.Equal(t, []drift.ObjectDiff{*scaled}, accepted)

	again := drift.Compare(web, live(5, "hello:1", ""), drift.Options{})
	again.ResourceVersion = "43" // the cluster's status updates move it: not a change
	open, accepted = drift.Accept([]drift.ObjectDiff{*again}, acceptances)
	require.Empty(t, open, "the same difference read again stays accepted")
	require.Len(t, accepted, 1)

	for name, changed := range map[string]map[string]any{
		"scaled again":            live(7, "hello:1", ""),
		"another field changed":   live(5, "hello:2", ""),
		"the accepted one undone": live(2, "hello:2", ""),
	} {
		d := drift.Compare(web, changed, drift.Options{})
		open, accepted = drift.Accept([]drift.ObjectDiff{*d}, acceptances)
		require.Len(t, open, 1, name+": a new change after the acceptance shows again")
		require.Empty(t, accepted, name)
	}
	deleted := drift.Compare(web, nil, drift.Options{})
	open, _ = drift.Accept([]drift.ObjectDiff{*deleted}, acceptances)
	require.Len(t, open, 1, "an accepted object deleted since is drift")
	_, accepted = drift.Accept([]drift.ObjectDiff{*deleted}, accepting(deleted))
	require.Len(t, accepted, 1, "an accepted deletion stays accepted")
}

func TestFingerprintOfASecretHoldsNoValue(t *testing.T) {
	t.Parallel()
	secret := objects(t)["Secret"]
	changed := func(rv, password string) *drift.ObjectDiff {
		return drift.Compare(secret, map[string]any{"metadata": map[string]any{"name": "creds", "resourceVersion": rv},
			"data": map[string]any{"password": password, "token": "c2VjcmV0"}}, drift.Options{})
	}
	a, b := changed("7", "b3RoZXI="), changed("7", "dGhpcmQ=")
	require.Equal(t, a.Fingerprint, b.Fingerprint, "a Secret's values never enter its fingerprint")
	require.NotEqual(t, a.Fingerprint, changed("8", "dGhpcmQ=").Fingerprint, "a Secret written again is a new difference")
}
