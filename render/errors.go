package render

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
)

// Error is a problem with one source. Its message names the source and,
// where one is at fault, the file and line.
type Error struct {
	// Source is the source as it was named (a path or an image reference).
	Source string
	// File names the file at fault the way a user finds it: a path for
	// directories, "REF: path" inside images. Empty when no file is at fault.
	File string
	Line int
	// Col is the column at fault on Line, when it is known (0 otherwise).
	Col int
	Err error
	// Invalid marks a problem with the input's content (a finding, exit 1)
	// as opposed to a failure to read it (exit 2).
	Invalid bool
}

func (e *Error) Error() string {
	var les declcfg.LoadErrors
	msg := e.Err.Error()
	switch {
	case e.File == "" && errors.As(e.Err, &les):
		// Catalog problems already name their file and line.
		return msg
	case e.File == "" && (strings.HasPrefix(msg, "pulling "+e.Source+":") || strings.HasPrefix(msg, "image "+e.Source+":")):
		// Image errors already name the image.
		return msg
	case e.File != "" && e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Col, e.Err)
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	case e.File != "":
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	default:
		return fmt.Sprintf("%s: %v", e.Source, e.Err)
	}
}

func (e *Error) Unwrap() error { return e.Err }

// Errors is every problem of a render, in source order.
type Errors []*Error

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap exposes the individual errors to errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// FaultKind is Input for a problem with the source's content and Run for a
// failure to read it.
func (e *Error) FaultKind() fault.Kind {
	if e.Invalid {
		return fault.Input
	}
	return fault.Run
}

// FaultKind is Input when every source failed for its content, and Run
// when any could not be read: the run is then incomplete, whatever else was
// found.
func (es Errors) FaultKind() fault.Kind {
	for _, e := range es {
		if !e.Invalid {
			return fault.Run
		}
	}
	if len(es) == 0 {
		return fault.Run
	}
	return fault.Input
}
