package views

import (
	"hash/fnv"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// placeholderTones is how many colour classes (.tone-0 …) the stylesheet defines.
const placeholderTones = 6

// initial returns the upper-case first letter of title for an icon placeholder.
func initial(title string) string {
	r, _ := utf8.DecodeRuneInString(strings.TrimSpace(title))
	if r == utf8.RuneError {
		return "?"
	}
	return string(unicode.ToUpper(r))
}

// placeholderTone picks a stable colour class for a driver's placeholder icon.
func placeholderTone(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name)) // a hash never fails to write
	return "tone-" + strconv.Itoa(int(h.Sum32()%placeholderTones))
}

// driverCount says how many drivers there are, in words.
func driverCount(n int) string {
	if n == 1 {
		return "1 driver"
	}
	return strconv.Itoa(n) + " drivers"
}

// labelQuery is a label as a query-string value.
func labelQuery(l DriverLabel) string {
	return url.QueryEscape(l.String())
}

// shortDigest abbreviates a content digest for display.
func shortDigest(d string) string {
	if len(d) > 19 {
		return d[:19] + "…"
	}
	return d
}

// hookClass is the colour class of an action's hook badge.
func hookClass(hook string) string {
	if hook == "manual" {
		return "hook-manual"
	}
	return "hook-lifecycle"
}

// promptCount says how many prompts an action asks, in words.
func promptCount(n int) string {
	if n == 1 {
		return "1 prompt"
	}
	return strconv.Itoa(n) + " prompts"
}

// catalogPageURL is the catalogue's address for page n with the same search
// and label filter.
func catalogPageURL(p DriverListProps, n int) string {
	q := url.Values{}
	if p.Query != "" {
		q.Set("q", p.Query)
	}
	if p.Label != "" {
		q.Set("label", p.Label)
	}
	q.Set("page", strconv.Itoa(n))
	return "/drivers?" + q.Encode()
}
