package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/styrmin/styrmin/localkube/substitute"
)

func TestReadImageRules(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.json", `[{"repository":"docker.io/library/postgres","image":"styrmin.local/postgres:15","runs":"Debian PostgreSQL 15.14"}]`)
	bad := write("bad.json", `{"repository":"docker.io/library/postgres"}`)
	absent := filepath.Join(dir, "absent.json")
	for _, c := range []struct {
		name     string
		path     string
		required bool
		want     []substitute.Rule
		fails    string
	}{
		{"a list", good, false, []substitute.Rule{{Repository: "docker.io/library/postgres", Image: "styrmin.local/postgres:15", Runs: "Debian PostgreSQL 15.14"}}, ""},
		{"the default file absent", absent, false, nil, ""},
		{"a named file absent", absent, true, nil, "no such file"},
		{"not a list", bad, false, nil, "is not a JSON list of rules"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := readImageRules(c.path, c.required)
			if c.fails != "" {
				if err == nil || !strings.Contains(err.Error(), c.fails) {
					t.Fatalf("error %v, want one that says %q", err, c.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) {
				t.Errorf("rules %+v, want %+v", got, c.want)
			}
		})
	}
}
