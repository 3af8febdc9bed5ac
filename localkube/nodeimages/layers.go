package nodeimages

import (
	"archive/tar"
	"fmt"
	"os"
	"path"
	"strings"
	"time"
)

// entry is one file, folder or symbolic link of an image's own layer.
type entry struct {
	path     string // without the leading slash
	mode     int64
	uid, gid int
	data     []byte
	dir      bool
	link     string // the target of a symbolic link
}

func file(p string, mode int64, data []byte) entry { return entry{path: p, mode: mode, data: data} }
func dir(p string, mode int64, uid, gid int) entry {
	return entry{path: p, mode: mode, uid: uid, gid: gid, dir: true}
}
func symlink(p, target string) entry { return entry{path: p, mode: 0o777, link: target} }

// embedded is a file of files/ as an entry at p.
func embedded(p string, mode int64, name string) (entry, error) {
	data, err := files.ReadFile("files/" + name)
	if err != nil {
		return entry{}, err
	}
	return file(p, mode, data), nil
}

// facts are what the per-image layers need from the built base.
type facts struct {
	passwd, group  []byte
	busyboxApplets []string
}

// officialUID is the uid and gid of the official postgres and redis images' users.
const officialUID = 999

func postgresLayer(facts) ([]entry, error) {
	entrypoint, err := embedded("usr/local/bin/docker-entrypoint.sh", 0o755, "postgres-entrypoint.sh")
	if err != nil {
		return nil, err
	}
	return []entry{
		dir("usr/local/bin", 0o755, 0, 0),
		entrypoint,
		dir("docker-entrypoint-initdb.d", 0o755, 0, 0),
		dir("var/lib/postgresql/data", 0o1777, officialUID, officialUID),
		dir("run/postgresql", 0o3775, officialUID, officialUID),
	}, nil
}

// redisLayer also swaps the ids of redis and postgres in passwd and group,
// so that redis is 999:999 as in the official image.
func redisLayer(f facts) ([]entry, error) {
	entrypoint, err := embedded("usr/local/bin/docker-entrypoint.sh", 0o755, "redis-entrypoint.sh")
	if err != nil {
		return nil, err
	}
	passwd, err := swapIDs(f.passwd, "redis", "postgres", 2, 3)
	if err != nil {
		return nil, fmt.Errorf("/etc/passwd: %w", err)
	}
	group, err := swapIDs(f.group, "redis", "postgres", 2)
	if err != nil {
		return nil, fmt.Errorf("/etc/group: %w", err)
	}
	return []entry{
		file("etc/passwd", 0o644, passwd),
		file("etc/group", 0o644, group),
		dir("usr/local/bin", 0o755, 0, 0),
		entrypoint,
		dir("data", 0o755, officialUID, officialUID),
	}, nil
}

func nginxLayer(facts) ([]entry, error) {
	var out []entry
	for _, f := range []struct{ path, name string }{
		{"etc/nginx/nginx.conf", "nginx.conf"},
		{"etc/nginx/conf.d/default.conf", "nginx-default.conf"},
		{"usr/share/nginx/html/index.html", "nginx-index.html"},
		{"usr/share/nginx/html/50x.html", "nginx-50x.html"},
	} {
		e, err := embedded(f.path, 0o644, f.name)
		if err != nil {
			return nil, err
		}
		out = append(out, dir(path.Dir(f.path), 0o755, 0, 0), e)
	}
	return append(out,
		dir("var/log/nginx", 0o755, 0, 0),
		symlink("var/log/nginx/access.log", "/dev/stdout"),
		symlink("var/log/nginx/error.log", "/dev/stderr"),
	), nil
}

// busyboxLayer puts every applet first on PATH, as the busybox image has
// them in /bin, but wget: GNU wget (in /usr/bin) runs instead.
func busyboxLayer(f facts) ([]entry, error) {
	if len(f.busyboxApplets) == 0 {
		return nil, fmt.Errorf("busybox lists no applets")
	}
	out := []entry{dir("usr/local/bin", 0o755, 0, 0)}
	for _, applet := range f.busyboxApplets {
		if applet != "wget" {
			out = append(out, symlink("usr/local/bin/"+applet, "/bin/busybox"))
		}
	}
	return out, nil
}

func pythonLayer(facts) ([]entry, error) {
	return []entry{dir("usr/local/bin", 0o755, 0, 0), symlink("usr/local/bin/python", "/usr/bin/python3")}, nil
}

// swapIDs swaps the id fields (by index) of the entries named a and b in a
// passwd or group file.
func swapIDs(content []byte, a, b string, fields ...int) ([]byte, error) {
	lines := strings.Split(string(content), "\n")
	find := func(name string) ([]string, int, error) {
		for i, line := range lines {
			if f := strings.Split(line, ":"); f[0] == name && len(f) > fields[len(fields)-1] {
				return f, i, nil
			}
		}
		return nil, 0, fmt.Errorf("no entry %s", name)
	}
	fa, ia, err := find(a)
	if err != nil {
		return nil, err
	}
	fb, ib, err := find(b)
	if err != nil {
		return nil, err
	}
	for _, i := range fields {
		fa[i], fb[i] = fb[i], fa[i]
	}
	lines[ia], lines[ib] = strings.Join(fa, ":"), strings.Join(fb, ":")
	return []byte(strings.Join(lines, "\n")), nil
}

// writeLayer writes entries as an uncompressed layer tar at p.
func writeLayer(p string, entries []entry) error {
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	written := map[string]bool{}
	for _, e := range entries {
		if written[e.path] {
			continue
		}
		written[e.path] = true
		if err := writeEntry(tw, e); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", e.path, err)
		}
	}
	if err := tw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeEntry(tw *tar.Writer, e entry) error {
	hdr := &tar.Header{Name: e.path, Mode: e.mode, Uid: e.uid, Gid: e.gid, ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg, Size: int64(len(e.data))}
	switch {
	case e.dir:
		hdr.Typeflag, hdr.Name, hdr.Size = tar.TypeDir, e.path+"/", 0
	case e.link != "":
		hdr.Typeflag, hdr.Linkname, hdr.Size = tar.TypeSymlink, e.link, 0
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err := tw.Write(e.data)
	return err
}
