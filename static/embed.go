// Package static holds the web app's CSS, scripts and images, embedded in the binary.
//
// js/htmx.min.js is htmx 2.0.11 (https://htmx.org), vendored unmodified from the
// npm package htmx.org@2.0.11 (dist/htmx.min.js, sha256
// d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717) under the
// Zero-Clause BSD licence in js/htmx.LICENSE.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sync"
)

// Prefix is the URL path under which the files are served.
const Prefix = "/static/"

//go:embed css js img
var files embed.FS

// FS returns the embedded files, named like "css/app.css".
func FS() fs.FS { return files }

// URL returns the address of the named file with a digest of its content, so
// browsers may cache it for ever. It panics on a name that is not embedded,
// a programming error caught by any test that renders the page.
func URL(name string) string {
	url, ok := urls()[name]
	if !ok {
		panic("static: no embedded file " + name)
	}
	return url
}

// urls maps every embedded file to its address; the digests are computed on
// first use, not on every page (htmx alone is 50 KiB to hash).
var urls = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(files, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		out[name] = Prefix + name + "?v=" + hex.EncodeToString(sum[:6])
		return nil
	})
	if err != nil {
		// The embedded files are always readable; failing here means a broken build.
		panic("static: read embedded files: " + err.Error())
	}
	return out
})
