package drivers

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
)

// maxIconSize is the largest icon a bundle may ship, in bytes.
const maxIconSize = 256 << 10

// iconTypes are the image types an icon may have.
var iconTypes = []string{"image/svg+xml", "image/png", "image/jpeg", "image/webp"}

// IsIconType reports whether contentType is one an icon may have, and so may
// be served with.
func IsIconType(contentType string) bool {
	return slices.Contains(iconTypes, contentType)
}

// loadIcon checks and returns the bundled icon named by spec.info.icon.
func loadIcon(rep *report, d *Driver, files map[string][]byte) *Icon {
	const field = "spec.info.icon"
	ref := d.Spec.Info.Icon
	if ref == "" || strings.Contains(ref, "://") || rep.reported(field) {
		return nil
	}
	name := bundlePath(ref)
	data, ok := files[name]
	if !ok {
		rep.add(field, "file %s not found in the bundle; add it or give an https:// URL", name)
		return nil
	}
	if len(data) > maxIconSize {
		rep.add(field, "%s is %d KiB; an icon may be at most %d KiB", name, (len(data)+1023)>>10, maxIconSize>>10)
		return nil
	}
	ct := sniffImage(data)
	if ct == "" {
		rep.add(field, "%s is not an SVG, PNG, JPEG or WebP image (its content is %s)", name, http.DetectContentType(data))
		return nil
	}
	return &Icon{Name: name, ContentType: ct, Data: data}
}

// sniffImage returns the icon media type of data, or "" when it is none of iconTypes.
func sniffImage(data []byte) string {
	if isSVG(data) {
		return "image/svg+xml"
	}
	ct := http.DetectContentType(data)
	for _, t := range iconTypes {
		if ct == t {
			return t
		}
	}
	return ""
}

// isSVG reports whether data is an XML document whose root element is svg.
func isSVG(data []byte) bool {
	rest := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for {
		rest = bytes.TrimLeft(rest, " \t\r\n")
		switch {
		case bytes.HasPrefix(rest, []byte("<?")):
			rest = skipPast(rest, "?>")
		case bytes.HasPrefix(rest, []byte("<!--")):
			rest = skipPast(rest, "-->")
		case bytes.HasPrefix(rest, []byte("<!DOCTYPE")), bytes.HasPrefix(rest, []byte("<!doctype")):
			rest = skipPast(rest, ">")
		default:
			return bytes.HasPrefix(rest, []byte("<svg")) && len(rest) > 4 && strings.ContainsRune(" \t\r\n>/", rune(rest[4]))
		}
		if rest == nil {
			return false
		}
	}
}

// skipPast returns what follows the first end in data, or nil when there is none.
func skipPast(data []byte, end string) []byte {
	i := bytes.Index(data, []byte(end))
	if i < 0 {
		return nil
	}
	return data[i+len(end):]
}
