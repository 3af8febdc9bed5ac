package substitute

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// TestAnnotationMatchesTheGolden checks the key and the JSON shape of
// Annotation against testdata/annotation.json, which Styrmin's kube package
// (the reader, in the other module) tests against too: a change on one side
// fails there until the golden and the other side follow.
func TestAnnotationMatchesTheGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/annotation.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct{ Key, Value string }
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	if golden.Key != Annotation {
		t.Errorf("Annotation is %q, the golden's key %q", Annotation, golden.Key)
	}
	var entries []Substitution
	decoder := json.NewDecoder(bytes.NewReader([]byte(golden.Value)))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&entries); err != nil {
		t.Fatalf("the golden value is not a list of Substitution: %v", err)
	}
	again, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != golden.Value {
		t.Errorf("Substitution encodes the golden entries as\n%s\nwant\n%s", again, golden.Value)
	}
}
