package redact

import (
	"encoding/base64"
	"regexp"
	"strings"
	"unicode"
)

// form is one common form of secret: a regular expression (RE2, so linear in
// the length of the text) whose submatch secret is replaced with Mark.
type form struct {
	// hints holds lower-case strings of which a text that matches re holds
	// at least one; a text with none is not searched.
	hints []string
	re    *regexp.Regexp
	// secret is the index of the submatch that holds the secret (0: the
	// whole match). Quotes around it are kept.
	secret int
	// accept, when set, reports whether a match is a secret; it is given
	// the submatches.
	accept func(m []string) bool
	// fold makes re match the text in ASCII lower case (re is then written
	// in lower case): faster than (?i).
	fold bool
	// keyAt, when set, anchors re (which starts with ^) where a run of key
	// characters holding a keyword starts: it is given the text in lower
	// case, the start of the run and the start of the search, and returns
	// where re must match, or -1 to skip the run. Anchored, a search costs
	// the length of the match, not of the line.
	keyAt func(lower string, run, pos int) int
}

// keyword matches the part of a key name that may make it name a secret;
// sensitiveKey decides.
const keyword = `(?:pass|pwd|secret|token|api[_.-]?key|access[_.-]?key|private[_.-]?key|accountkey|auth|credential|sig)`

// value matches a value: double-quoted, single-quoted, JSON-escaped
// double-quoted, or bare up to white space, a quote, '&', ',' or ';'.
const value = `"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\\"[^"\\\n]*|["']?[^\s"'&,;:][^\s"'&,;]*`

// pemKey matches the label of a private key's PEM armour (PKCS#1 RSA, EC,
// PKCS#8, encrypted PKCS#8, OpenSSH, PGP, ...).
const pemKey = `[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`

// blockForms are the forms that may span lines; they are searched in the
// whole text.
var blockForms = []form{
	// A PEM private key, from its BEGIN line to its END line or, cut
	// short, to the end of the text; the armour lines are kept.
	{
		hints:  []string{"private key"},
		re:     regexp.MustCompile(`(?s)-----BEGIN ` + pemKey + `(.*?)(?:-----END ` + pemKey + `|\z)`),
		secret: 1,
	},
	// The base64 lines before the END line of a PEM private key whose
	// BEGIN line was cut off, as at the top of the tail of a Job's output.
	{
		hints:  []string{"private key"},
		re:     regexp.MustCompile(`(?m)((?:^[ \t]*[A-Za-z0-9+/=]{16,}[ \t]*\r?\n)*^[ \t]*[A-Za-z0-9+/=]+[ \t]*\r?\n)-----END ` + pemKey),
		secret: 1,
	},
}

// lineForms are the forms that never span lines; they are searched line by
// line, in this order.
var lineForms = []form{
	// The password of a URL: scheme://user:password@host.
	{
		hints:  []string{"://"},
		re:     regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@"'<>]*:([^\s/?#"']+)@`),
		secret: 1,
	},
	// key=value, key: value, "key": "value", key => value, --key=value and
	// KEY=value, for key names that name a secret; an authorization scheme
	// before the value (Authorization: Bearer ...) is kept.
	{
		hints: keyHints,
		re: regexp.MustCompile(`^\\?["']?([a-z0-9_.-]*` + keyword + `[a-z0-9_.-]*)\\?["']?[ \t]*(?:=>|:|=)[ \t]*` +
			`(?:(?:bearer|basic|token|bot|negotiate|ntlm)[ \t]+)?(` + value + `)`),
		secret: 2,
		accept: func(m []string) bool {
			if strings.HasPrefix(m[1], "-") {
				return sensitiveFlag(m[1])
			}
			return sensitiveKey(m[1])
		},
		fold: true,
		keyAt: func(lower string, run, pos int) int {
			// Back over an opening quote, JSON-escaped or not.
			if run > pos && (lower[run-1] == '"' || lower[run-1] == '\'') {
				run--
				if run > pos && lower[run-1] == '\\' {
					run--
				}
			}
			return run
		},
	},
	// --key value and -key value, for flag names that name a secret.
	{
		hints: keyHints,
		re: regexp.MustCompile(`^--?([a-z0-9_.-]*` + keyword + `[a-z0-9_.-]*)[ \t]+` +
			`("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s"'&,;-][^\s"'&,;]*)`),
		secret: 2,
		accept: func(m []string) bool { return sensitiveFlag(m[1]) },
		fold:   true,
		keyAt: func(lower string, run, _ int) int {
			if run == 0 || strings.IndexByte(" \t\"'([", lower[run-1]) >= 0 {
				return run
			}
			return -1
		},
	},
	// Bearer, Basic and Token credentials outside a header.
	{
		hints:  []string{"bearer", "basic", "token"},
		re:     regexp.MustCompile(`\b(bearer|basic|token)[ \t]+([a-z0-9._~+/-]+=*)`),
		secret: 2,
		accept: func(m []string) bool { return credentialLike(m[1], m[2]) },
		fold:   true,
	},
	// SQL: PASSWORD 'secret' (PostgreSQL), IDENTIFIED BY 'secret' (MySQL).
	{
		hints:  []string{"password", "identified"},
		re:     regexp.MustCompile(`\b(?:password|identified[ \t]+by)[ \t]+('(?:[^'\\\n]|\\.|'')*')`),
		secret: 1,
		fold:   true,
	},
	// Redis: redis-cli -a secret; requirepass and masterauth in a
	// configuration or a CONFIG SET.
	{
		hints:  []string{"redis-cli"},
		re:     regexp.MustCompile(`\bredis-cli\b[^\n]*?[ \t]-a[ \t]+("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s"']+)`),
		secret: 1,
	},
	{
		hints:  []string{"requirepass", "masterauth"},
		re:     regexp.MustCompile(`\b(?:requirepass|masterauth)[ \t]+(` + value + `)`),
		secret: 1,
		fold:   true,
	},
	// MySQL clients: mysql -psecret.
	{
		hints:  []string{"mysql"},
		re:     regexp.MustCompile(`\bmysql(?:dump|admin|import|sh)?\b[^\n]*?[ \t]-p([^\s"']+)`),
		secret: 1,
	},
	// curl -u user:secret.
	{
		hints:  []string{"curl"},
		re:     regexp.MustCompile(`\bcurl\b[^\n]*?[ \t](?:-u|--user)[ \t]*[^\s:"']*:([^\s"']+)`),
		secret: 1,
	},
	// Tokens known by their shape, replaced whole.
	token([]string{"eyj"}, `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`, nil),                // JWT
	token([]string{"akia", "asia"}, `\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`, nil),                                      // AWS access key id
	token([]string{"gh", "github_pat_"}, `\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`, nil), // GitHub
	token([]string{"glpat-", "gldt-", "glrt-", "glptt-"}, `\bgl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}`, nil),     // GitLab
	token([]string{"xox"}, `\bxox[abposr]-[A-Za-z0-9-]{10,}`, nil),                                             // Slack
	token([]string{"_live_", "_test_"}, `\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`, nil),                     // Stripe
	token([]string{"aiza"}, `\bAIza[0-9A-Za-z_-]{35}`, nil),                                                    // Google API key
	token([]string{"npm_"}, `\bnpm_[A-Za-z0-9]{30,}`, nil),                                                     // npm
	token([]string{"sk-"}, `\bsk-[A-Za-z0-9_-]{20,}`, mixedCase),                                               // OpenAI, Anthropic
	token([]string{"hf_"}, `\bhf_[A-Za-z0-9]{30,}`, mixedCase),                                                 // Hugging Face
	token([]string{"sta_"}, `\bsta_[A-Za-z0-9_-]{16,}=*`, nil),                                                 // Styrmin action token
	token([]string{"stp_"}, `\bstp_[A-Za-z0-9_-]{16,}=*`, nil),                                                 // Styrmin personal API token
}

// token returns a form that replaces a whole match of expr; accept, when
// set, is given the match.
func token(hints []string, expr string, accept func(string) bool) form {
	f := form{hints: hints, re: regexp.MustCompile(expr)}
	if accept != nil {
		f.accept = func(m []string) bool { return accept(m[0]) }
	}
	return f
}

// wants reports whether lower, a text in ASCII lower case, may hold a match.
func (f *form) wants(lower string) bool {
	for _, h := range f.hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// apply returns s, whose ASCII lower case is lower, with the secret of each
// accepted match replaced. After a refused match, the search goes on from
// the start of its secret, so that a secret inside it (author: token=...) is
// still found.
func (f *form) apply(s, lower string) string {
	text := s
	if f.fold {
		text = lower
	}
	var b strings.Builder
	last := 0
	for pos := 0; pos < len(s); {
		m := f.next(text, lower, pos)
		if m == nil {
			break
		}
		start, end := m[2*f.secret], m[2*f.secret+1]
		if f.accept != nil && !f.accept(submatches(s, m)) {
			pos = m[1]
			if start > m[0] {
				pos = start
			}
			continue
		}
		pos = max(m[1], m[0]+1)
		start, end = bounds(s, start, end)
		if start >= end {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(markLines(s[start:end]))
		last = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// next returns the submatch indexes in text of the first match at or after
// pos, or nil.
func (f *form) next(text, lower string, pos int) []int {
	if f.keyAt == nil {
		return offset(f.re.FindStringSubmatchIndex(text[pos:]), pos)
	}
	for run := pos; run < len(lower); {
		if !isKeyChar(lower[run]) {
			run++
			continue
		}
		end := run + 1
		for end < len(lower) && isKeyChar(lower[end]) {
			end++
		}
		if hasKeyword(lower[run:end]) {
			if at := f.keyAt(lower, run, pos); at >= 0 {
				if m := f.re.FindStringSubmatchIndex(text[at:]); m != nil {
					return offset(m, at)
				}
			}
		}
		run = end
	}
	return nil
}

// offset adds pos to the indexes m of a match.
func offset(m []int, pos int) []int {
	for i := range m {
		if m[i] >= 0 {
			m[i] += pos
		}
	}
	return m
}

// isKeyChar reports whether c, in lower case, may be part of a key name.
func isKeyChar(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

// keyHints are the strings of which a key that keyword matches holds one.
var keyHints = []string{"pass", "pwd", "secret", "token", "key", "auth", "credential", "sig"}

// hasKeyword reports whether key, in lower case, holds one of keyHints.
func hasKeyword(key string) bool {
	for _, w := range keyHints {
		if strings.Contains(key, w) {
			return true
		}
	}
	return false
}

// submatches returns the submatches of s at the indexes m.
func submatches(s string, m []int) []string {
	sub := make([]string, len(m)/2)
	for i := range sub {
		if m[2*i] >= 0 {
			sub[i] = s[m[2*i]:m[2*i+1]]
		}
	}
	return sub
}

// bounds returns the bounds of the secret s[start:end] without its quotes
// (", ' or \") or, unquoted, without the closing brackets that it does not
// open: (PGPASSWORD=secret) keeps its ')'.
func bounds(s string, start, end int) (int, int) {
	var q string
	switch {
	case strings.HasPrefix(s[start:end], `\"`):
		q = `\"`
	case strings.HasPrefix(s[start:end], `"`), strings.HasPrefix(s[start:end], `'`):
		q = s[start : start+1]
	default:
		var open, unopened [3]int
		for i := start; i < end; i++ {
			if k := strings.IndexByte("([{", s[i]); k >= 0 {
				open[k]++
			} else if k := strings.IndexByte(")]}", s[i]); k >= 0 {
				unopened[k]++
			}
		}
		for end > start {
			k := strings.IndexByte(")]}", s[end-1])
			if k < 0 || unopened[k] <= open[k] {
				break
			}
			unopened[k]--
			end--
		}
		return start, end
	}
	start += len(q)
	if end-start >= len(q) && strings.HasSuffix(s[start:end], q) {
		end -= len(q)
	}
	return start, end
}

// keyWords are the words that, inside a key name, make it name a secret.
var keyWords = []string{
	"password", "passwd", "passphrase", "secret", "token", "credential",
	"apikey", "accesskey", "privatekey", "accountkey",
}

// notSecret holds the last words of key names that name something about a
// secret rather than the secret (password_file, secretName, token_type,
// max_tokens, AuthenticationError: ...).
var notSecret = map[string]bool{
	"name": true, "names": true, "file": true, "path": true, "dir": true, "ref": true,
	"count": true, "type": true, "len": true, "length": true, "size": true,
	"url": true, "uri": true, "endpoint": true, "method": true, "mode": true,
	"enabled": true, "disabled": true, "required": true, "expiry": true, "expires": true,
	"expiration": true, "ttl": true, "at": true, "timeout": true, "provider": true,
	"version": true, "error": true, "errors": true, "exception": true, "warning": true,
	"failed": true, "failure": true, "tokens": true, "tokenizer": true, "usage": true,
	"policy": true, "header": true, "user": true, "username": true, "scope": true,
	"scopes": true, "issuer": true, "status": true, "format": true, "hint": true,
	"prompt": true, "reset": true, "source": true, "realm": true,
}

// sensitiveKey reports whether key names a secret: it holds a word such as
// password, secret, token, api_key or auth (not author), and does not end in
// a word such as name, file or error.
func sensitiveKey(key string) bool {
	words := splitWords(key)
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	if notSecret[last] {
		return false
	}
	flat := strings.Join(words, "")
	switch {
	case last == "pass" && len(words) > 1, // DB_PASS
		flat == "sig", last == "signature", // Azure SAS, S3 and GCS signed URLs
		hasAuth(flat):
		return true
	}
	for _, w := range words {
		if strings.Contains(w, "pwd") {
			return true
		}
	}
	for _, w := range keyWords {
		if strings.Contains(flat, w) {
			return true
		}
	}
	return false
}

// sensitiveFlag reports whether the command-line flag name (without its
// dashes) takes a secret: --password, --token, --pass (redis-cli), but not
// --no-password.
func sensitiveFlag(name string) bool {
	name = strings.ToLower(strings.TrimLeft(name, "-"))
	if strings.HasPrefix(name, "no-") {
		return false
	}
	return name == "pass" || sensitiveKey(name)
}

// hasAuth reports whether flat holds "auth" other than as in author or
// authority.
func hasAuth(flat string) bool {
	for i := 0; ; {
		j := strings.Index(flat[i:], "auth")
		if j < 0 {
			return false
		}
		rest := flat[i+j+4:]
		if !strings.HasPrefix(rest, "or") || strings.HasPrefix(rest, "orization") || strings.HasPrefix(rest, "orisation") {
			return true
		}
		i += j + 4
	}
}

// splitWords splits a key name into its words in lower case, at characters
// other than letters and digits and where camelCase starts a word.
func splitWords(key string) []string {
	var words []string
	var w []rune
	prevLower := false
	for _, c := range key {
		isAlnum := unicode.IsLetter(c) || unicode.IsDigit(c)
		if !isAlnum || (unicode.IsUpper(c) && prevLower) {
			if len(w) > 0 {
				words = append(words, string(w))
				w = w[:0]
			}
		}
		if isAlnum {
			w = append(w, unicode.ToLower(c))
		}
		prevLower = unicode.IsLower(c) || unicode.IsDigit(c)
	}
	if len(w) > 0 {
		words = append(words, string(w))
	}
	return words
}

// credentialLike reports whether v, after the authorization scheme, looks
// like a credential rather than a word (Basic authentication, the bearer of).
func credentialLike(scheme, v string) bool {
	if strings.EqualFold(scheme, "basic") {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
			if d, err := enc.DecodeString(v); err == nil && printable(string(d)) && strings.Contains(string(d), ":") {
				return true
			}
		}
	}
	return randomLike(v)
}

// randomLike reports whether v looks generated: at least 12 characters with
// letters and digits, or at least 20 with both cases.
func randomLike(v string) bool {
	var lower, upper, digit bool
	for _, c := range v {
		lower = lower || unicode.IsLower(c)
		upper = upper || unicode.IsUpper(c)
		digit = digit || unicode.IsDigit(c)
	}
	return len(v) >= 12 && (lower || upper) && digit || len(v) >= 20 && lower && upper
}

// mixedCase reports whether v holds lower-case letters, upper-case letters
// and digits, as a generated token does and a hyphenated name does not.
func mixedCase(v string) bool {
	var lower, upper, digit bool
	for _, c := range v {
		lower = lower || unicode.IsLower(c)
		upper = upper || unicode.IsUpper(c)
		digit = digit || unicode.IsDigit(c)
	}
	return lower && upper && digit
}

// printable reports whether s is printable ASCII.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
