package views

import (
	"strings"
	"time"
)

// sessionTime shows when a session started or was last used, in UTC.
func sessionTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// browserName names the browser and system of a User-Agent header, such as
// "Firefox on Linux", or "Unknown browser".
func browserName(ua string) string {
	browser := firstMatch(ua, []string{"Edg/", "Edge", "OPR/", "Opera", "Firefox/", "Firefox", "Chromium/", "Chromium", "Chrome/", "Chrome", "Safari/", "Safari", "curl/", "curl"})
	system := firstMatch(ua, []string{"Windows", "Windows", "Android", "Android", "iPhone", "iOS", "iPad", "iPadOS", "Mac OS X", "macOS", "CrOS", "ChromeOS", "Linux", "Linux"})
	switch {
	case browser == "" && system == "":
		return "Unknown browser"
	case browser == "":
		return "A browser on " + system
	case system == "":
		return browser
	default:
		return browser + " on " + system
	}
}

// firstMatch returns the name of the first (token, name) pair of pairs whose
// token occurs in s, or "".
func firstMatch(s string, pairs []string) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		if strings.Contains(s, pairs[i]) {
			return pairs[i+1]
		}
	}
	return ""
}
