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
	data, err := fs.ReadFile(files, name)
	if err != nil {
		panic("static: no embedded file " + name)
	}
	sum := sha256.Sum256(data)
	return Prefix + name + "?v=" + hex.EncodeToString(sum[:6])
}
