// Package profiles is the bundle-content profiles as fbc sees them: the
// names --profile takes (Parse), and the fbc-profile executable that runs
// them. The checks themselves (validate/profile, with operator-framework/api,
// crdify and the Kubernetes libraries they need) are linked into
// fbc-profile only; fbc runs it beside itself, as git runs its git-*
// commands, and the two talk over fbc-profile's standard input and output.
//
// # The protocol
//
// Each message is one JSON object on one line. fbc writes Requests to
// fbc-profile's standard input and reads Responses from its standard
// output; fbc-profile's standard error is for its own failures only.
// Nothing is written to disk. In order:
//
//  1. fbc sends {"hello": Hello}: the protocol version, fbc's build
//     identity, the profiles as --profile takes them and operator-controller's
//     feature gates as --feature-gates does, whether only bundle
//     directories and images are checked, and how many bundles may be
//     checked at once.
//  2. fbc-profile answers {"hello": Hello} with its own protocol version and
//     identity. fbc refuses to go on unless both are the same as its own
//     (the two executables come from one build); fbc-profile does too, and
//     exits after its answer. fbc need not wait for the answer before it
//     sends its first requests: fbc-profile reads them once it has
//     answered (or not at all, when it refuses).
//  3. fbc sends {"bundle": {"id": N, "contents": validate.BundleContents,
//     "payload": [SIZE...]}} for every bundle (catalog bundles without their
//     olm.bundle.object properties, whose manifests are the contents'
//     objects, and with each other property's type but not its value). The
//     manifests, files and property values follow the line as raw bytes,
//     unencoded: payload gives their sizes, each object's JSON in order,
//     then each file's data, then each property's value. fbc-profile answers each
//     bundle, in any order, with
//     {"findings": {"id": N, "findings": [declcfg.Finding...]}}.
//  4. fbc sends {"catalog": Catalog} once, with what the catalog-wide checks
//     read (packages, channels and their entries, bundles' names, versions
//     and positions), then closes fbc-profile's standard input. fbc-profile
//     answers {"done": {"findings": [...]}}, its last message, and exits 0.
//
// At any time fbc-profile may send {"warning": "..."} (a note for the
// user, which fbc prints as its own warning) or {"error": "..."}, after
// which it exits non-zero. A message that is not one of these, a response
// to no request, a message longer than MaxMessage (64 MiB), or
// fbc-profile's exit before "done" ends the run: fbc reports that the
// profiles could not run (exit 2), with fbc-profile's exit status and the
// first line it wrote to standard error, and no report at all. What fbc
// prints of fbc-profile's own words (that line, warnings, errors) loses
// the control characters and escape sequences a terminal would act on.
//
// fbc runs fbc-profile as the leader of a process group of its own (on
// Unix) and ends the group when fbc-profile exits or the run ends: nothing
// fbc-profile starts outlives it, or holds its pipes open.
package profiles

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// Protocol is the version of the exchange this package speaks.
const Protocol = 2

// Executable is the name of the program that runs the profiles.
const Executable = "fbc-profile"

// Request is a message from fbc to fbc-profile: exactly one field is set.
type Request struct {
	Hello   *Hello         `json:"hello,omitempty"`
	Bundle  *BundleRequest `json:"bundle,omitempty"`
	Catalog *Catalog       `json:"catalog,omitempty"`
}

// Hello opens the exchange, both ways.
type Hello struct {
	Protocol int `json:"protocol"`
	// Version is the sender's build identity (buildinfo.Info.Identity).
	Version string `json:"version"`
	// Profiles is the set to run, as --profile takes it (fbc's hello only).
	Profiles string `json:"profiles,omitempty"`
	// Gates are operator-controller's feature gates the olmv1 profile
	// follows, as NAME=BOOL pairs, as --feature-gates takes them (fbc's
	// hello only; v1.11's defaults when empty).
	Gates string `json:"gates,omitempty"`
	// SourcesOnly checks bundle directories and images, not the bundles of
	// catalogs: fbc validate's default for bundle sources.
	SourcesOnly bool `json:"sourcesOnly,omitempty"`
	// Concurrency is how many bundles fbc-profile may check at once (0:
	// as many as it has processors).
	Concurrency int `json:"concurrency,omitempty"`
}

// BundleRequest asks for one bundle's findings.
type BundleRequest struct {
	ID       int64                    `json:"id"`
	Contents *validate.BundleContents `json:"contents"`
	// Payload is the sizes of the raw bytes that follow the request's
	// line: the JSON of each of Contents.Objects, then the data of each of
	// Contents.Files, then the value of each of Contents.Bundle.Properties
	// (whose values the line leaves out). Encoding them in the line would
	// cost more than checking them does: a catalog's olm.csv.metadata
	// values are megabytes.
	Payload []int `json:"payload,omitempty"`

	// buf holds the payload fbc-profile read (readPayload).
	buf []byte
}

// chunk is the most of a payload written or read in one system call: one
// long copy kept the Go runtime's monitor waking every 20 µs to hand the
// caller's processor to another thread. fbc-profile's reader buffers as
// much, so that a chunk read into an empty buffer bypasses it.
const chunk = 32 << 10

// maxPayload bounds one object or file: OLM stages no bundle over 1 MiB
// compressed, and a size beyond this is a broken exchange.
const maxPayload = 1 << 30

// Response is a message from fbc-profile to fbc: exactly one field is set.
type Response struct {
	Hello    *Hello          `json:"hello,omitempty"`
	Findings *BundleFindings `json:"findings,omitempty"`
	Warning  string          `json:"warning,omitempty"`
	Done     *Done           `json:"done,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// BundleFindings answers the BundleRequest of the same ID.
type BundleFindings struct {
	ID       int64             `json:"id"`
	Findings []declcfg.Finding `json:"findings"`
}

// Done is the findings of the catalog-wide checks, the last message.
type Done struct {
	Findings []declcfg.Finding `json:"findings"`
}

// line is a message encoded as its line, newline included, in a buffer
// that goes back to lines once written.
type line struct{ bytes.Buffer }

var lines = sync.Pool{New: func() any { return new(line) }}

// encode encodes a message as its line. HTML characters stay as they are:
// encoding/json would escape them in the property values it copies
// (json.RawMessage), and a finding that quotes a value must quote what the
// catalog says.
func encode(v any) (*line, error) {
	l := lines.Get().(*line)
	l.Reset()
	enc := json.NewEncoder(&l.Buffer)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		l.free()
		return nil, err
	}
	return l, nil
}

// free hands the line's buffer back; a large one is let go.
func (l *line) free() {
	if l.Cap() <= 1<<20 {
		lines.Put(l)
	}
}
