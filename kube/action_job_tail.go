package kube

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// The bounds of the output kept of a failed action Job: its last TailMaxLines
// lines, at most TailMaxBytes bytes.
const (
	// TailMaxLines is the most lines kept.
	TailMaxLines = 200
	// TailMaxBytes is the most bytes kept; a longer last line keeps its end.
	TailMaxBytes = 64 << 10
)

// tailBuffer is an io.Writer that keeps the last bytes written to it in a
// fixed ring, so its memory stays the same whatever is written: TailMaxBytes
// and room for a final CRLF, which Tail drops.
type tailBuffer struct {
	ring  [TailMaxBytes + 2]byte
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

// Tail returns the last TailMaxLines lines of what was written, at most
// TailMaxBytes bytes, as valid UTF-8 with "\n" between lines (CRLF becomes
// LF, a final line break is dropped), and the number of lines. When the byte
// bound cuts a line, its end is kept.
func (b *tailBuffer) Tail() (string, int) {
	if b.total == 0 {
		return "", 0
	}
	kept := b.kept()
	if b.total > int64(len(kept)) { // cut: drop the rest of a character cut in two
		for i := 0; i < utf8.UTFMax-1 && len(kept) > 0 && !utf8.RuneStart(kept[0]); i++ {
			kept = kept[1:]
		}
	}
	text := strings.ReplaceAll(string(kept), "\r\n", "\n")
	text = strings.TrimSuffix(text, "\n")
	lines := strings.Split(text, "\n")
	if len(lines) > TailMaxLines {
		lines = lines[len(lines)-TailMaxLines:]
	}
	text = strings.ToValidUTF8(strings.Join(lines, "\n"), "\uFFFD")
	if len(text) > TailMaxBytes { // the room for a final CRLF was not needed, or replacement characters made it longer
		text = text[len(text)-TailMaxBytes:]
		for text != "" && !utf8.RuneStart(text[0]) {
			text = text[1:]
		}
	}
	return text, strings.Count(text, "\n") + 1
}

// readTail reads r to its end through a tailBuffer and returns its tail.
func readTail(r io.Reader) (tail string, lines int, err error) {
	var b tailBuffer
	if _, err := io.CopyBuffer(&b, r, make([]byte, 32<<10)); err != nil {
		tail, lines = b.Tail()
		return tail, lines, fmt.Errorf("read log: %w", err)
	}
	tail, lines = b.Tail()
	return tail, lines, nil
}

var _ io.Writer = (*tailBuffer)(nil)
