// Package fault holds what fbc's libraries report besides their results:
// errors of three kinds (bad usage, bad input, could not run) and warnings.
// Libraries say what went wrong; only the command line's Main turns kinds
// into exit codes and warnings into lines on standard error.
package fault

import (
	"errors"
	"fmt"
)

// Kind says whose fault an error is.
type Kind uint8

const (
	// Run is a failure to do the work: an unreadable file, an unreachable
	// registry, a full disk. An error without a kind is of this kind.
	Run Kind = iota
	// Usage is a request that does not fit: options that contradict each
	// other, a selection naming what the input does not have, an output
	// that is in the way.
	Usage
	// Input is a problem with the input's content: a catalog, bundle,
	// template or image that is not what it should be. It is a finding
	// about the input, not a failure of the run.
	Input
)

func (k Kind) String() string {
	switch k {
	case Usage:
		return "usage"
	case Input:
		return "input"
	}
	return "run"
}

// Kinded is implemented by errors that know their kind. Error types whose
// kind depends on their content (a list of errors of several kinds)
// implement it themselves; others are wrapped with Wrap or Errorf.
type Kinded interface {
	error
	FaultKind() Kind
}

// KindOf returns the kind of err: that of the outermost error in its chain
// that has one, so that a caller can re-classify an error by wrapping it.
// Errors without a kind are Run errors.
func KindOf(err error) Kind {
	var k Kinded
	if errors.As(err, &k) {
		return k.FaultKind()
	}
	return Run
}

type kinded struct {
	kind Kind
	err  error
}

func (e *kinded) Error() string   { return e.err.Error() }
func (e *kinded) Unwrap() error   { return e.err }
func (e *kinded) FaultKind() Kind { return e.kind }

// Wrap gives err a kind; the message is err's. Wrap(k, nil) is nil.
func Wrap(k Kind, err error) error {
	if err == nil {
		return nil
	}
	return &kinded{kind: k, err: err}
}

// Errorf is fmt.Errorf with a kind.
func Errorf(k Kind, format string, args ...any) error {
	return &kinded{kind: k, err: fmt.Errorf(format, args...)}
}

// Warn receives warnings: one message each, without a prefix or a final
// newline (the command line adds its own). Every Options struct of fbc's
// libraries that can warn has a field of this type. It may be called from
// several goroutines at once. A nil Warn drops warnings.
type Warn func(msg string)

// Printf formats and sends one warning; it does nothing when w is nil.
func (w Warn) Printf(format string, args ...any) {
	if w != nil {
		w(fmt.Sprintf(format, args...))
	}
}
