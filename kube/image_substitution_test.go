package kube_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/kube"
)

// annotatedPod is a pod in ns with labels component=comp and, when value
// is not empty, the image substitution annotation value.
func annotatedPod(name, comp, value string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"component": comp}}}
	if value != "" {
		p.Annotations = map[string]string{kube.ImageSubstitutionAnnotation: value}
	}
	return p
}

const (
	postgresOnDebian = `{"container":"db","requested":"postgres:16.4","image":"styrmin.local/postgres:15","runs":"Debian PostgreSQL 15.14"}`
	noRedis          = `{"container":"cache","requested":"redis:7.2","runs":"no image on the local cluster stands in for redis:7.2; the local cluster builds postgres"}`
)

func TestReleaseStateImageSubstitutionsReadsTheReleasesPodsOncePerSubstitution(t *testing.T) {
	db := deployment("db", "shop", "db", 2, 2)
	db.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"component": "db"}}
	other := deployment("other-db", "other", "other", 1, 1)
	other.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"component": "other"}}
	c := fakeClient(db, other,
		annotatedPod("db-1", "db", "["+postgresOnDebian+","+noRedis+"]"),
		annotatedPod("db-2", "db", "["+postgresOnDebian+"]"),
		annotatedPod("db-3", "db", ""),
		annotatedPod("other-1", "other", `[{"container":"x","requested":"nginx:1","image":"styrmin.local/nginx:1","runs":"Debian nginx 1.22.1"}]`),
	)

	state, err := c.ReleaseState(context.Background(), ns, "shop")
	require.NoError(t, err)
	got := state.ImageSubstitutions
	require.Equal(t, []kube.ImageSubstitution{
		{Container: "db", Requested: "postgres:16.4", Image: "styrmin.local/postgres:15", Runs: "Debian PostgreSQL 15.14"},
		{Container: "cache", Requested: "redis:7.2", Runs: "no image on the local cluster stands in for redis:7.2; the local cluster builds postgres"},
	}, got)
	require.False(t, got[0].Missing())
	require.True(t, got[1].Missing())
}

func TestReleaseStateImageSubstitutionsNoneWithoutAnnotations(t *testing.T) {
	db := deployment("db", "shop", "db", 1, 1)
	db.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"component": "db"}}
	state, err := fakeClient(db, annotatedPod("db-1", "db", "")).ReleaseState(context.Background(), ns, "shop")
	require.NoError(t, err)
	require.Empty(t, state.ImageSubstitutions)
}

func TestReleaseStateImageSubstitutionsSaysWhichAnnotationItCannotRead(t *testing.T) {
	db := deployment("db", "shop", "db", 1, 1)
	db.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"component": "db"}}
	_, err := fakeClient(db, annotatedPod("db-1", "db", "postgres")).ReleaseState(context.Background(), ns, "shop")
	require.ErrorContains(t, err, "pod shop/db-1: annotation styrmin.io/image-substitutions is not a list of image substitutions")
}

// TestImageSubstitutionAnnotationMatchesLocalkube checks the key and the
// JSON shape against the golden annotation of the contract in the localkube
// module (localkube/substitute), which that module tests too.
func TestImageSubstitutionAnnotationMatchesLocalkube(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "localkube", "substitute", "testdata", "annotation.json"))
	require.NoError(t, err)
	var golden struct{ Key, Value string }
	require.NoError(t, json.Unmarshal(data, &golden))
	require.Equal(t, golden.Key, kube.ImageSubstitutionAnnotation)
	var entries []kube.ImageSubstitution
	decoder := json.NewDecoder(bytes.NewReader([]byte(golden.Value)))
	decoder.DisallowUnknownFields()
	require.NoError(t, decoder.Decode(&entries))
	again, err := json.Marshal(entries)
	require.NoError(t, err)
	require.Equal(t, golden.Value, string(again), "the same fields in the same order")
}
