package actions

import (
	"encoding/json"
	"fmt"
	"strings"
)

// lineSink passes a run's log lines on, up to MaxLines, and notes the first
// ERROR line in the outcome.
type lineSink struct {
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

// protocol reads one line of the runner's standard output; anything that is
// not a protocol line is an INFO log line.
func (s *lineSink) protocol(text string) {
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

// add passes a line on, noting the first ERROR line; exception lines do not count.
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
	if s.dropped > 0 {
		s.sink(Line{Level: "WARNING", Message: fmt.Sprintf("… %d more log lines were not kept (at most %d are)", s.dropped, MaxLines)})
	}
}
