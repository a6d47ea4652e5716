package serve

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzhttp"

	"github.com/fbc-project/fbc/internal/imageref"
)

// catalogd's HTTP API, as operator-controller's catalogd serves it:
//
//	GET|HEAD /catalogs/NAME/api/v1/all
//	    every blob, one JSON object per line, in catalog order
//	    (Content-Type application/jsonl, Last-Modified, ranges,
//	    conditional requests)
//	GET|HEAD /catalogs/NAME/api/v1/metas?schema=S&package=P&name=N
//	    the blobs whose schema, package and name fields equal the
//	    parameters given (all three optional; none is the whole catalog)
//
// Responses are gzipped for clients that accept it. A blob's package and
// name are its own fields: an olm.package blob has a name and no package,
// so ?package=foo does not return it (as in catalogd).

// jsonlType is catalogd's content type for blob streams.
const jsonlType = "application/jsonl"

// httpTimeFormat is http.TimeFormat: RFC 1123 in GMT.
const httpTimeFormat = http.TimeFormat

// dns1123Subdomain is the form catalogd requires of catalog names.
var dns1123Subdomain = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
})

// CheckName reports whether name can be a catalog name in catalogd's API.
func CheckName(name string) error {
	switch {
	case len(name) > 253:
		return fmt.Errorf("invalid catalog name: must be no more than 253 characters")
	case !dns1123Subdomain().MatchString(name):
		return fmt.Errorf("invalid catalog name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
	}
	return nil
}

func catalogdHandler(name string, cat func() *Catalog) http.Handler {
	mux := http.NewServeMux()
	h := &catalogd{name: name, cat: cat}
	mux.HandleFunc("/catalogs/{catalog}/api/v1/all", h.methods(h.all))
	mux.HandleFunc("/catalogs/{catalog}/api/v1/metas", h.methods(h.metas))
	return gzhttp.GzipHandler(mux)
}

type catalogd struct {
	name string
	cat  func() *Catalog
}

func httpError(w http.ResponseWriter, code int) {
	http.Error(w, fmt.Sprintf("%d %s", code, http.StatusText(code)), code)
}

// badRequest answers 400 with catalogd's status line and what was wrong.
func badRequest(w http.ResponseWriter, why string) {
	http.Error(w, fmt.Sprintf("%d %s: %s", http.StatusBadRequest, http.StatusText(http.StatusBadRequest), why), http.StatusBadRequest)
}

// methods allows GET and HEAD, and finds the catalog the path names.
func (h *catalogd) methods(next func(http.ResponseWriter, *http.Request, *Catalog)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
			return
		}
		name := r.PathValue("catalog")
		if err := CheckName(name); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c := h.cat()
		switch {
		case name != h.name:
			httpError(w, http.StatusNotFound)
		case c == nil:
			// Still loading: catalogd has no content yet either.
			w.Header().Set("Retry-After", "1")
			httpError(w, http.StatusServiceUnavailable)
		default:
			next(w, r, c)
		}
	}
}

func (h *catalogd) all(w http.ResponseWriter, r *http.Request, c *Catalog) {
	w.Header().Add("Content-Type", jsonlType)
	http.ServeContent(w, r, "", c.loadedAt, io.NewSectionReader(c.spill, 0, c.size))
}

func (h *catalogd) metas(w http.ResponseWriter, r *http.Request, c *Catalog) {
	// url.Values from r.URL.Query would drop the pairs it cannot parse
	// (a bad escape, a ';'), and a query that lost its filters answers
	// with the whole catalog: refuse it, as an unknown parameter is.
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		badRequest(w, fmt.Sprintf("malformed query: %v", err))
		return
	}
	for k := range q {
		if k != "schema" && k != "package" && k != "name" {
			badRequest(w, fmt.Sprintf("unknown query parameter %q: metas takes schema, package and name", k))
			return
		}
	}
	w.Header().Set("Last-Modified", c.loadedAt.UTC().Format(httpTimeFormat))
	if notModified(w, r, c.loadedAt) {
		return
	}
	schema, pkg, name := q.Get("schema"), q.Get("package"), q.Get("name")
	w.Header().Add("Content-Type", jsonlType)
	if r.Method == http.MethodHead {
		return
	}
	if schema == "" && pkg == "" && name == "" {
		_, _ = io.Copy(w, io.NewSectionReader(c.spill, 0, c.size))
		return
	}
	for _, i := range c.selectBlobs(schema, pkg, name) {
		ref := c.blobs[i]
		if _, err := io.Copy(w, io.NewSectionReader(c.spill, ref.off, int64(ref.n))); err != nil {
			return
		}
	}
}

// selectBlobs lists, in catalog order, the blobs whose fields equal every
// non-empty parameter.
func (c *Catalog) selectBlobs(schema, pkg, name string) []int {
	var sets [][]int
	if schema != "" {
		sets = append(sets, c.bySchema[schema])
	}
	if pkg != "" {
		sets = append(sets, c.byPackage[pkg])
	}
	if name != "" {
		sets = append(sets, c.byName[name])
	}
	// Each list is in catalog order: intersect the shortest with the rest.
	slices.SortFunc(sets, func(a, b []int) int { return len(a) - len(b) })
	out := slices.Clone(sets[0])
	for _, s := range sets[1:] {
		out = slices.DeleteFunc(out, func(i int) bool {
			_, found := slices.BinarySearch(s, i)
			return !found
		})
	}
	return out
}

// notModified answers the conditional headers of a metas request the way
// catalogd does (RFC 7232 for a resource with a modification time and no
// entity tag) and reports whether it has answered.
func notModified(w http.ResponseWriter, r *http.Request, modtime time.Time) bool {
	modtime = modtime.Truncate(time.Second)
	before := func(header string) (bool, bool) {
		t, err := http.ParseTime(r.Header.Get(header))
		if err != nil {
			return false, false
		}
		return !modtime.After(t), true
	}
	if im := r.Header.Get("If-Match"); im != "" {
		if !strings.Contains(im, "*") {
			w.WriteHeader(http.StatusPreconditionFailed)
			return true
		}
	} else if r.Header.Get("If-Unmodified-Since") != "" {
		if ok, parsed := before("If-Unmodified-Since"); parsed && !ok {
			w.WriteHeader(http.StatusPreconditionFailed)
			return true
		}
	}
	if inm := textproto.TrimString(r.Header.Get("If-None-Match")); inm != "" {
		if strings.HasPrefix(inm, "*") {
			writeNotModified(w)
			return true
		}
		return false
	}
	if r.Header.Get("If-Modified-Since") != "" {
		if ok, parsed := before("If-Modified-Since"); parsed && ok {
			writeNotModified(w)
			return true
		}
	}
	return false
}

func writeNotModified(w http.ResponseWriter) {
	h := w.Header()
	delete(h, "Content-Type")
	delete(h, "Content-Length")
	delete(h, "Content-Encoding")
	w.WriteHeader(http.StatusNotModified)
}

// DefaultName is the catalog name used when none is given: the last path
// element of the source (a directory or file, without its extension, or an
// image's repository, without tag or digest), lowercased, with what a
// catalog name cannot hold turned into '-'; "catalog" when nothing is left.
func DefaultName(source string) string {
	s := strings.TrimRight(source, "/")
	if _, rest, ok := imageref.CutTransport(s); ok {
		s = strings.TrimRight(imageref.SplitLocal(rest).Path, "/")
	} else {
		s = imageref.Repository(s)
	}
	if i := strings.LastIndex(s, "/"); i >= 0 {
		s = s[i+1:]
	}
	for _, ext := range []string{".tar", ".json", ".yaml", ".yml"} {
		s = strings.TrimSuffix(s, ext)
	}
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-.")
	if len(name) > 253 {
		name = strings.Trim(name[:253], "-.")
	}
	if name == "" || CheckName(name) != nil {
		return "catalog"
	}
	return name
}

// semicolonFilter drops net/http's warning about queries with a ';': such a
// query is answered 400 (see metas), and each would otherwise write a line
// to the log.
type semicolonFilter struct{ w io.Writer }

func (f semicolonFilter) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("URL query contains semicolon")) {
		return len(p), nil
	}
	return f.w.Write(p)
}
