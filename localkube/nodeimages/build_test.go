package nodeimages

import (
	"archive/tar"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/styrmin/styrmin/localkube/substitute"
)

// fakeMmdebstrap stands in for mmdebstrap on PATH: it counts its runs in
// the file runs and writes what the hooks would copy out and an empty base.
const fakeMmdebstrap = `#!/bin/sh
echo run >> "$FAKE_RUNS"
for a in "$@"; do
	case "$a" in --customize-hook=copy-out*) out="${a##* }" ;; esac
	prev2="$prev"; prev="$a"
done
tarfile="$prev2"
cat > "$out/status" <<'STATUS'
Package: postgresql-15
Status: install ok installed
Version: 15.20-0+deb12u1

Package: redis-server
Status: install ok installed
Version: 5:7.0.15-1~deb12u10

Package: nginx-light
Status: install ok installed
Version: 1.22.1-9+deb12u11

Package: busybox
Status: install ok installed
Version: 1:1.35.0-4+deb12u1+b1

Package: python3
Status: install ok installed
Version: 3.11.2-1+b1

Package: wget
Status: install ok installed
Version: 1.21.3-1+deb12u1

Package: python2
Status: deinstall ok config-files
Version: 2.7.18-3
STATUS
printf 'root:x:0:0:root:/root:/bin/bash\npostgres:x:999:999::/var/lib/postgresql:/bin/bash\nredis:x:100:102::/var/lib/redis:/usr/sbin/nologin\n' > "$out/passwd"
printf 'root:x:0:\npostgres:x:999:\nredis:x:102:\n' > "$out/group"
printf 'sh\nwget\nnslookup\n' > "$out/busybox-applets"
tar -cf "$tarfile" -T /dev/null
`

// withFake puts a fake mmdebstrap running script first on PATH and returns
// the file that counts its runs.
func withFake(t *testing.T, script string) string {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "mmdebstrap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(t.TempDir(), "runs")
	t.Setenv("FAKE_RUNS", runs)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return runs
}

func countRuns(t *testing.T, runs string) int {
	t.Helper()
	data, err := os.ReadFile(runs)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "run")
}

func quiet(string, ...any) {}

func TestBuildListsTheVersionsInstalledAndReusesItsCache(t *testing.T) {
	runs := withFake(t, fakeMmdebstrap)
	dir := t.TempDir()
	images, err := Build(context.Background(), dir, quiet)
	if err != nil {
		t.Fatal(err)
	}
	want := []substitute.Rule{
		{Repository: "docker.io/library/postgres", Image: "styrmin.local/postgres:15", Runs: "Debian PostgreSQL 15.20"},
		{Repository: "docker.io/library/redis", Image: "styrmin.local/redis:7", Runs: "Debian Redis 7.0.15"},
		{Repository: "docker.io/library/nginx", Image: "styrmin.local/nginx:1", Runs: "Debian nginx 1.22.1"},
		{Repository: "docker.io/library/busybox", Image: "styrmin.local/busybox:1", Runs: "Debian BusyBox 1.35.0 with GNU Wget 1.21.3"},
		{Repository: "docker.io/library/python", Image: "styrmin.local/python:3", Runs: "Debian Python 3.11.2"},
	}
	if !slices.Equal(images.Rules, want) {
		t.Fatalf("rules\n%v\nwant\n%v", images.Rules, want)
	}
	if _, err := os.Stat(images.Layout); err != nil {
		t.Fatal(err)
	}
	again, err := Build(context.Background(), dir, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if n := countRuns(t, runs); n != 1 || again.Layout != images.Layout {
		t.Fatalf("second build ran mmdebstrap %d times in all (want 1) and gave %s (want %s)", n, again.Layout, images.Layout)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("cache folder holds %d entries, want the one complete entry", len(entries))
	}
}

func TestBuildNeverUsesAHalfWrittenEntry(t *testing.T) {
	runs := withFake(t, fakeMmdebstrap)
	dir := t.TempDir()
	key, err := recipeKey(files)
	if err != nil {
		t.Fatal(err)
	}
	// What an interrupted build can leave: its temporary folder (whatever
	// it holds), and an entry without the rules, which are written last.
	leftover := filepath.Join(dir, ".building-"+key+"-1")
	writeFiles(t, leftover, map[string]string{layoutFile: "half", rulesFile: "[]"})
	writeFiles(t, filepath.Join(dir, key), map[string]string{layoutFile: "half"})
	images, err := Build(context.Background(), dir, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if countRuns(t, runs) != 1 || len(images.Rules) != len(standIns) {
		t.Fatalf("a half-written entry was used: mmdebstrap ran %d times, rules %v", countRuns(t, runs), images.Rules)
	}
	if data, err := os.ReadFile(images.Layout); err != nil || string(data) == "half" {
		t.Fatalf("layout %q, %v: want the new build's", data, err)
	}
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Fatalf("the interrupted build's folder is still there: %v", err)
	}
}

func writeFiles(t *testing.T, dir string, contents map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range contents {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBuildSaysWhyWhenMmdebstrapFails(t *testing.T) {
	withFake(t, "#!/bin/sh\necho \"E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  Temporary failure resolving 'deb.debian.org'\" >&2\nexit 1\n")
	dir := t.TempDir()
	_, err := Build(context.Background(), dir, quiet)
	if err == nil {
		t.Fatal("built without mmdebstrap succeeding")
	}
	for _, want := range []string{"mmdebstrap could not build", "Temporary failure resolving", "apt-get update"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed build left %d entries in the cache", len(entries))
	}
}

func TestBuildSaysHowToInstallMmdebstrap(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Build(context.Background(), t.TempDir(), quiet)
	if err == nil || !strings.Contains(err.Error(), "scripts/ensure-node-packages") {
		t.Fatalf("error %v: want one that names scripts/ensure-node-packages", err)
	}
}

func TestRecipeKeyChangesWithTheRecipe(t *testing.T) {
	key := func() string {
		t.Helper()
		k, err := recipeKey(files)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	base := key()
	if key() != base {
		t.Fatal("the same recipe hashes to two keys")
	}
	packages = append(packages, "curl")
	withPackage := key()
	packages = packages[:len(packages)-1]
	env := standIns[1].config.Env
	standIns[1].config.Env = append(slices.Clone(env), "EXTRA=1")
	withEnv := key()
	standIns[1].config.Env = env
	copied := fstest.MapFS{}
	entries, err := files.ReadDir("files")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := files.ReadFile("files/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		copied["files/"+e.Name()] = &fstest.MapFile{Data: data}
	}
	if k, err := recipeKey(copied); err != nil || k != base {
		t.Fatalf("a copy of the embedded files hashes to %s (%v), want %s", k, err, base)
	}
	copied["files/nginx.conf"].Data = append(copied["files/nginx.conf"].Data, '#')
	withFile, err := recipeKey(copied)
	if err != nil {
		t.Fatal(err)
	}
	if key() != base {
		t.Fatal("restoring the recipe did not restore its key")
	}
	for what, k := range map[string]string{"a package": withPackage, "an image's env": withEnv, "an embedded file": withFile} {
		if k == base {
			t.Errorf("changing %s keeps the key %s", what, base)
		}
	}
}

func TestLayersHoldEachImagesInterface(t *testing.T) {
	f := facts{
		passwd:         []byte("root:x:0:0:root:/root:/bin/bash\npostgres:x:999:999::/var/lib/postgresql:/bin/bash\nredis:x:100:102::/var/lib/redis:/usr/sbin/nologin\n"),
		group:          []byte("root:x:0:\npostgres:x:999:\nredis:x:102:\n"),
		busyboxApplets: []string{"sh", "wget", "nslookup"},
	}
	layerOf := func(name string) map[string]*tar.Header {
		t.Helper()
		for _, s := range standIns {
			if !strings.Contains(s.image, "/"+name+":") {
				continue
			}
			entries, err := s.layer(f)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "layer.tar")
			if err := writeLayer(p, entries); err != nil {
				t.Fatal(err)
			}
			return readHeaders(t, p)
		}
		t.Fatalf("no image %s", name)
		return nil
	}
	pg := layerOf("postgres")
	if h := pg["var/lib/postgresql/data/"]; h == nil || h.Uid != 999 || h.Gid != 999 {
		t.Errorf("postgres: PGDATA's default folder %+v, want 999:999", h)
	}
	if h := pg["usr/local/bin/docker-entrypoint.sh"]; h == nil || h.Mode&0o111 == 0 {
		t.Errorf("postgres: entrypoint %+v, want an executable", h)
	}
	redis := layerOf("redis")
	if h := redis["data/"]; h == nil || h.Uid != 999 {
		t.Errorf("redis: /data %+v, want it owned by 999", h)
	}
	nginx := layerOf("nginx")
	if h := nginx["var/log/nginx/access.log"]; h == nil || h.Linkname != "/dev/stdout" {
		t.Errorf("nginx: access.log %+v, want a link to /dev/stdout", h)
	}
	busybox := layerOf("busybox")
	if h := busybox["usr/local/bin/nslookup"]; h == nil || h.Linkname != "/bin/busybox" {
		t.Errorf("busybox: nslookup %+v, want the busybox applet", h)
	}
	if h := busybox["usr/local/bin/wget"]; h != nil {
		t.Errorf("busybox: wget %+v, want GNU wget, not busybox's (which crashes on -T)", h)
	}
}

// readHeaders returns the headers of a layer tar by name.
func readHeaders(t *testing.T, p string) map[string]*tar.Header {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]*tar.Header{}
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out[hdr.Name] = hdr
	}
}

func TestSwapIDsMakesRedis999(t *testing.T) {
	passwd := "postgres:x:999:999::/var/lib/postgresql:/bin/bash\nredis:x:100:102::/var/lib/redis:/usr/sbin/nologin\n"
	got, err := swapIDs([]byte(passwd), "redis", "postgres", 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := "postgres:x:100:102::/var/lib/postgresql:/bin/bash\nredis:x:999:999::/var/lib/redis:/usr/sbin/nologin\n"
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := swapIDs([]byte(passwd), "nginx", "postgres", 2); err == nil {
		t.Fatal("swapped with a missing user")
	}
}

func TestUpstreamVersion(t *testing.T) {
	for debian, want := range map[string]string{
		"15.20-0+deb12u1":       "15.20",
		"5:7.0.15-1~deb12u10":   "7.0.15",
		"1:1.35.0-4+deb12u1+b1": "1.35.0",
		"3.11.2-1+b1":           "3.11.2",
		"1.0":                   "1.0",
	} {
		if got := upstreamVersion(debian); got != want {
			t.Errorf("upstreamVersion(%q) = %q, want %q", debian, got, want)
		}
	}
}
