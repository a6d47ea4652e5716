package review

import (
	"regexp"
	"strconv"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// sink gathers the warnings of a review (every library's fault.Warn),
// each once, so that the report counts and shows them as findings of rule
// run-warning instead of their going to standard error beside it.
type sink struct {
	mu   sync.Mutex
	msgs []string
	seen map[string]bool
}

func (s *sink) add(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if s.seen[msg] {
		return
	}
	s.seen[msg] = true
	s.msgs = append(s.msgs, msg)
}

// warningPos reads the position a warning starts with, as
// declcfg.Pos.Prefix writes it: FILE:LINE[:COL]: (a FILE may hold colons:
// an image's files are named REF@DIGEST:path).
var warningPos = regexp.MustCompile(`^(\S+?):(\d+)(?::(\d+))?: `)

// findings are the warnings as findings, in the order they came.
func (s *sink) findings() []declcfg.Finding {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]declcfg.Finding, 0, len(s.msgs))
	for _, msg := range s.msgs {
		f := declcfg.Finding{Rule: validate.RuleRunWarning, Severity: declcfg.SeverityWarning, Message: msg}
		if m := warningPos.FindStringSubmatch(msg); m != nil {
			f.Pos.File = m[1]
			f.Pos.Line, _ = strconv.Atoi(m[2])
			f.Pos.Col, _ = strconv.Atoi(m[3])
			f.Message = msg[len(m[0]):]
		}
		out = append(out, f)
	}
	return out
}
