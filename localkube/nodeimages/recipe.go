// Package nodeimages builds the local cluster's stand-ins for the images the
// bundled drivers request (postgres, redis, nginx, busybox, python): the real
// node reaches no registry, so one mmdebstrap run makes a Debian bookworm
// root filesystem holding every package, shared by all images as their base
// layer, and each image adds a small layer (entrypoint, configuration) and
// its own config on top. The result is cached under the cluster folder,
// keyed by a hash of the recipe, and listed as substitute.Rule values with
// the versions that really run.
package nodeimages

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"strings"

	"github.com/styrmin/styrmin/localkube/ociimage"
)

// recipeVersion is part of the cache key: bump it when the Go code that
// makes the layers changes what it writes.
const recipeVersion = "nodeimages 1"

// suite is the Debian release the images are built from.
const suite = "bookworm"

// packages are installed into the shared base, with their dependencies.
var packages = []string{
	"postgresql-15", "postgresql-client-15",
	"redis-server", "redis-tools",
	"nginx-light",
	// Debian's busybox, not busybox-static: the static one's shell runs
	// its own applets before anything on PATH, and bookworm's busybox wget
	// crashes on -T (its timeout is not compiled in before 1.36.1-5),
	// which the hello-web driver's actions pass. The busybox image runs
	// GNU wget instead, found on PATH.
	"busybox",
	"wget",
	"python3",
}

// pgMajor is the PostgreSQL major version Debian bookworm ships.
const pgMajor = "15"

// defaultPath is the PATH of the official images.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

//go:embed files
var files embed.FS

// mmdebstrapArgs are the arguments that build the shared base, but for its
// output tar and the folder the hooks copy facts out to (outDir); they are
// part of the cache key with outDir left as a placeholder.
func mmdebstrapArgs(outDir, tarPath, mirror string) []string {
	args := []string{
		"--variant=minbase", "--mode=root", "--format=tar",
		"--include=" + strings.Join(packages, ","),
		// Man pages, docs and translations are a third of the size.
		"--dpkgopt=path-exclude=/usr/share/man/*",
		"--dpkgopt=path-exclude=/usr/share/doc/*",
		"--dpkgopt=path-include=/usr/share/doc/*/copyright",
		"--dpkgopt=path-exclude=/usr/share/locale/*",
		"--dpkgopt=path-exclude=/usr/share/info/*",
		// PostgreSQL's JIT needs LLVM, 135 MB of 420: left out, so the
		// server runs with JIT off (jit_provider does not load).
		"--dpkgopt=path-exclude=/usr/lib/*/libLLVM-*",
		"--dpkgopt=path-exclude=/usr/lib/*/libz3.so*",
		"--dpkgopt=path-exclude=/usr/lib/postgresql/*/lib/llvmjit*",
		"--dpkgopt=path-exclude=/usr/lib/postgresql/*/lib/bitcode/*",
		// Debian's postgresql-15 would create a cluster "main"; the
		// entrypoint creates PGDATA instead.
		`--essential-hook=mkdir -p "$1/etc/postgresql-common" && echo "create_main_cluster = false" > "$1/etc/postgresql-common/createcluster.conf"`,
		// The official postgres image's user is 999:999; creating it before
		// the package makes Debian's postinst keep it.
		`--essential-hook=echo "postgres:x:999:999:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash" >> "$1/etc/passwd" && echo "postgres:x:999:" >> "$1/etc/group"`,
		"--customize-hook=copy-out /var/lib/dpkg/status /etc/passwd /etc/group " + outDir,
		`--customize-hook=chroot "$1" /bin/busybox --list > ` + outDir + "/busybox-applets",
		suite, tarPath,
	}
	return append(args, mirror)
}

// recipeKey hashes everything that decides the images' content: the
// mmdebstrap arguments, the images' names and configs, the files embedded
// in their layers and recipeVersion. A changed recipe gets a new key, so it
// is built afresh.
func recipeKey(fsys fs.FS) (string, error) {
	h := sha256.New()
	h.Write([]byte(recipeVersion + "\n"))
	for _, a := range mmdebstrapArgs("OUT", "TAR", "MIRROR") {
		h.Write([]byte(a + "\n"))
	}
	for _, s := range standIns {
		data, err := json.Marshal([]any{s.image, s.repository, s.config})
		if err != nil {
			return "", err
		}
		h.Write(data)
	}
	entries, err := fs.ReadDir(fsys, "files")
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		data, err := fs.ReadFile(fsys, "files/"+e.Name())
		if err != nil {
			return "", err
		}
		h.Write([]byte(e.Name() + "\n"))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// standIn is one image built here and the requested repository it stands in for.
type standIn struct {
	// image is the local image's name, e.g. styrmin.local/postgres:15.
	image string
	// repository is the requested one, normalized as containerd names it.
	repository string
	// product and pkg say what runs: the product's name and the Debian
	// package whose version is read from the base's dpkg status.
	product, pkg string
	// with are other programs that run in the image instead of the
	// original's, said in the rule too.
	with   []component
	config ociimage.Config
	// layer lists the image's own files on top of the base.
	layer func(facts) ([]entry, error)
}

// component is a program of an image and the Debian package it comes from.
type component struct{ product, pkg string }

// standIns are the images built here, in the order they are listed.
var standIns = []standIn{
	{
		image: "styrmin.local/postgres:" + pgMajor, repository: "docker.io/library/postgres",
		product: "PostgreSQL", pkg: "postgresql-" + pgMajor,
		config: ociimage.Config{
			Entrypoint:   []string{"/usr/local/bin/docker-entrypoint.sh"},
			Cmd:          []string{"postgres"},
			Env:          []string{"PATH=/usr/lib/postgresql/" + pgMajor + "/bin:" + defaultPath, "PG_MAJOR=" + pgMajor, "PGDATA=/var/lib/postgresql/data", "LANG=C.UTF-8"},
			ExposedPorts: []string{"5432/tcp"},
			StopSignal:   "SIGINT",
		},
		layer: postgresLayer,
	},
	{
		image: "styrmin.local/redis:7", repository: "docker.io/library/redis",
		product: "Redis", pkg: "redis-server",
		config: ociimage.Config{
			Entrypoint:   []string{"/usr/local/bin/docker-entrypoint.sh"},
			Cmd:          []string{"redis-server"},
			Env:          []string{"PATH=" + defaultPath},
			WorkingDir:   "/data",
			ExposedPorts: []string{"6379/tcp"},
		},
		layer: redisLayer,
	},
	{
		image: "styrmin.local/nginx:1", repository: "docker.io/library/nginx",
		product: "nginx", pkg: "nginx-light",
		config: ociimage.Config{
			Cmd:          []string{"nginx", "-g", "daemon off;"},
			Env:          []string{"PATH=" + defaultPath},
			ExposedPorts: []string{"80/tcp"},
			StopSignal:   "SIGQUIT",
		},
		layer: nginxLayer,
	},
	{
		image: "styrmin.local/busybox:1", repository: "docker.io/library/busybox",
		product: "BusyBox", pkg: "busybox",
		with:   []component{{product: "GNU Wget", pkg: "wget"}},
		config: ociimage.Config{Cmd: []string{"sh"}, Env: []string{"PATH=" + defaultPath}},
		layer:  busyboxLayer,
	},
	{
		image: "styrmin.local/python:3", repository: "docker.io/library/python",
		product: "Python", pkg: "python3",
		config: ociimage.Config{Cmd: []string{"python3"}, Env: []string{"PATH=" + defaultPath, "LANG=C.UTF-8"}},
		layer:  pythonLayer,
	},
}
