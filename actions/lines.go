package actions

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// lineSink passes a run's log lines on, up to MaxLines, and notes the first
// ERROR line in the outcome. The readers of standard output and standard
// error share it: it calls sink with one line at a time, in the order it
// takes them.
type lineSink struct {
	mu      sync.Mutex
	sink    func(Line)
	out     *Outcome
	passed  int
	dropped int
}

// newLineSink returns a lineSink writing to sink and out.
func newLineSink(sink func(Line), out *Outcome) *lineSink {
	return &lineSink{sink: sink, out: out}
}

// protocolLine is one line of the runner's standard output (docs/actions.md).
type protocolLine struct {
	T         string          `json:"t"`
	Level     string          `json:"level"`
	Msg       string          `json:"msg"`
	Traceback string          `json:"traceback"`
	Value     json.RawMessage `json:"value"`
}

// levels are the log levels a line may have.
var levels = map[string]bool{"DEBUG": true, "INFO": true, "WARNING": true, "ERROR": true, "CRITICAL": true}

// stderr reads one line of the process's standard error, a WARNING log line.
func (s *lineSink) stderr(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.add(Line{Level: "WARNING", Message: text})
}

// protocol reads one line of the runner's standard output; anything that is
// not a protocol line is an INFO log line.
func (s *lineSink) protocol(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.out
	var p protocolLine
	if !strings.HasPrefix(text, "{") || json.Unmarshal([]byte(text), &p) != nil {
		s.add(Line{Level: "INFO", Message: text})
		return
	}
	switch p.T {
	case "log":
		level := strings.ToUpper(p.Level)
		if !levels[level] {
			level = "INFO"
		}
		s.add(Line{Level: level, Message: p.Msg})
	case "exception":
		out.Exception, out.Traceback = p.Msg, p.Traceback
		for _, line := range strings.Split(strings.TrimRight(p.Traceback, "\n"), "\n") {
			s.add(Line{Level: "ERROR", Message: line})
		}
	case "result":
		out.Result = p.Value
	default:
		s.add(Line{Level: "INFO", Message: text})
	}
}

// add passes a line on, noting the first ERROR line; exception lines do not
// count. s.mu is held.
func (s *lineSink) add(l Line) {
	if s.out.FirstError == "" && (l.Level == "ERROR" || l.Level == "CRITICAL") && s.out.Exception == "" {
		s.out.FirstError = l.Message
	}
	if s.passed >= MaxLines {
		s.dropped++
		return
	}
	s.passed++
	s.sink(l)
}

// finish reports the lines that were not kept.
func (s *lineSink) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dropped > 0 {
		s.sink(Line{Level: "WARNING", Message: fmt.Sprintf("… %d more log lines were not kept (at most %d are)", s.dropped, MaxLines)})
	}
}
