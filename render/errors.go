package render

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
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
	Err  error
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

// IsInvalidInput reports whether err is entirely about the inputs' content:
// every Error it holds is Invalid. A caller maps that to "findings" and
// anything else (an unreadable file, an unreachable registry, a usage
// mistake) to "could not run".
func IsInvalidInput(err error) bool {
	if err == nil {
		return false
	}
	var es Errors
	if errors.As(err, &es) {
		for _, e := range es {
			if !e.Invalid {
				return false
			}
		}
		return len(es) > 0
	}
	var e *Error
	return errors.As(err, &e) && e.Invalid
}
