package actions

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// lineSink passes a run's log lines on, up to MaxLines, and notes the first
// ERROR line in the outcome. The readers of standard output and standard
// error share it and never wait for the sink: their lines go to a queue (at
// most MaxLines of them), which one goroutine empties into the sink, one line
// at a time, in the order the readers took them.
type lineSink struct {
	sink func(Line)
	out  *Outcome
	done chan struct{}
	wake chan struct{}

	mu      sync.Mutex // guards what follows, and out while the readers run
	queue   []Line
	closed  bool
	passed  int
	dropped int
}

// newLineSink returns a lineSink writing to sink and out, and starts the
// goroutine that calls sink.
func newLineSink(sink func(Line), out *Outcome) *lineSink {
	s := &lineSink{sink: sink, out: out, done: make(chan struct{}), wake: make(chan struct{}, 1)}
	go s.drain()
	return s
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

// warning adds a WARNING line of the runtime's own.
func (s *lineSink) warning(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.add(Line{Level: "WARNING", Message: text})
}

// protocol reads one line of the runner's standard output or standard
// error; anything that is not a protocol line is an INFO log line.
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

// add queues a line for the sink, noting the first line of the first record
// of level ERROR or CRITICAL; the lines of the exception's traceback do not
// count. s.mu is held.
func (s *lineSink) add(l Line) {
	if s.out.FirstError == "" && (l.Level == "ERROR" || l.Level == "CRITICAL") && s.out.Exception == "" {
		first, _, _ := strings.Cut(l.Message, "\n")
		s.out.FirstError = strings.TrimRight(first, "\r")
	}
	if s.passed >= MaxLines {
		s.dropped++
		return
	}
	s.passed++
	s.queue = append(s.queue, l)
	s.signal()
}

// signal wakes drain. s.mu is held.
func (s *lineSink) signal() {
	select {
	case s.wake <- struct{}{}:
	default: // drain is awake already
	}
}

// drain calls the sink with each queued line until finish has been called
// and the queue is empty.
func (s *lineSink) drain() {
	defer close(s.done)
	for {
		s.mu.Lock()
		batch, closed := s.queue, s.closed
		s.queue = nil
		s.mu.Unlock()
		for _, l := range batch {
			s.sink(l)
		}
		if len(batch) > 0 {
			continue
		}
		if closed {
			return
		}
		<-s.wake
	}
}

// finish reports the lines that were not kept, and returns once the sink has
// had every line. The readers have ended.
func (s *lineSink) finish() {
	s.mu.Lock()
	if s.dropped > 0 {
		s.queue = append(s.queue, Line{Level: "WARNING", Message: fmt.Sprintf("… %d more log lines were not kept (at most %d are)", s.dropped, MaxLines)})
	}
	s.closed = true
	s.signal()
	s.mu.Unlock()
	<-s.done
}
