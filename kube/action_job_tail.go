package kube

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/styrmin/styrmin/redact"
)

// The bounds of the output kept of a failed action Job, after redaction: its
// last TailMaxLines lines, at most TailMaxBytes bytes.
const (
	// TailMaxLines is the most lines kept.
	TailMaxLines = 200
	// TailMaxBytes is the most bytes kept; a longer last line keeps its end.
	TailMaxBytes = 64 << 10
)

// tailRawBytes is how much of the end of a log a tailBuffer keeps before
// redaction: room for TailMaxBytes after redaction, which may shorten the
// text (a long secret becomes redact.Mark), and for the line that the
// buffer's own cut starts in the middle of, which is dropped.
const tailRawBytes = 4 * TailMaxBytes

// tailBuffer is an io.Writer that keeps the last tailRawBytes bytes written
// to it in a fixed ring, so its memory stays the same whatever is written.
type tailBuffer struct {
	ring  [tailRawBytes]byte
	next  int  // where the next byte goes
	full  bool // the ring has wrapped: every byte is in use
	total int64
}

// Write keeps the end of p; it never fails.
func (b *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.total += int64(n)
	if len(p) >= len(b.ring) {
		p = p[len(p)-len(b.ring):]
	}
	for len(p) > 0 {
		c := copy(b.ring[b.next:], p)
		p = p[c:]
		b.next += c
		if b.next == len(b.ring) {
			b.next, b.full = 0, true
		}
	}
	return n, nil
}

// kept returns the bytes in the ring, oldest first.
func (b *tailBuffer) kept() []byte {
	if !b.full {
		return append([]byte(nil), b.ring[:b.next]...)
	}
	out := make([]byte, 0, len(b.ring))
	out = append(out, b.ring[b.next:]...)
	return append(out, b.ring[:b.next]...)
}

// Tail returns the end of what was written, redacted by r (nil: the common
// forms of secrets only), and its number of lines: valid UTF-8 with "\n"
// between lines (CRLF becomes LF, a final line break is dropped).
//
// It redacts first and cuts afterwards: the result is the last TailMaxLines
// lines of the redacted text, as many whole lines as fit in TailMaxBytes, or
// the end of the last line, cut at a character boundary, when that line
// alone is longer. Where the ring had to drop the start of the log, the line
// it cut (unless it is the only one) and the rest of a literal secret it cut
// are dropped before redacting, so that no part of a secret the redactor
// could not recognize whole is shown.
func (b *tailBuffer) Tail(r *redact.Redactor) (string, int) {
	if b.total == 0 {
		return "", 0
	}
	kept := b.kept()
	cut := b.total > int64(len(kept))
	for cut && len(kept) > 0 && !utf8.RuneStart(kept[0]) { // the rest of a character cut in two
		kept = kept[1:]
	}
	text := strings.ToValidUTF8(strings.ReplaceAll(string(kept), "\r\n", "\n"), "\uFFFD")
	text = strings.TrimSuffix(text, "\n")
	if cut {
		text = r.TrimCutValue(text)
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i+1:] // a form of secret whose label was cut off would go unseen
		}
	}
	return boundTail(r.String(text))
}

// boundTail returns the end of text within the bounds and its number of
// lines: the last TailMaxLines lines, as many whole ones as fit in
// TailMaxBytes, else the end of the last line cut at a character boundary.
func boundTail(text string) (string, int) {
	lines := strings.Split(text, "\n")
	if len(lines) > TailMaxLines {
		lines = lines[len(lines)-TailMaxLines:]
	}
	start, size := len(lines), -1 // size: the bytes of lines[start:] joined
	for start > 0 && size+1+len(lines[start-1]) <= TailMaxBytes {
		start--
		size += 1 + len(lines[start])
	}
	if start < len(lines) {
		return strings.Join(lines[start:], "\n"), len(lines) - start
	}
	last := lines[len(lines)-1]
	last = last[len(last)-TailMaxBytes:]
	for last != "" && !utf8.RuneStart(last[0]) {
		last = last[1:]
	}
	return last, 1
}

// readTail reads r to its end through a tailBuffer and returns its tail,
// redacted by red.
func readTail(r io.Reader, red *redact.Redactor) (tail string, lines int, err error) {
	var b tailBuffer
	if _, err := io.CopyBuffer(&b, r, make([]byte, 32<<10)); err != nil {
		tail, lines = b.Tail(red)
		return tail, lines, fmt.Errorf("read log: %w", err)
	}
	tail, lines = b.Tail(red)
	return tail, lines, nil
}

var _ io.Writer = (*tailBuffer)(nil)
