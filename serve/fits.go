package serve

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
)

// fitsJSON reports whether encoding/json would decode the canonical JSON
// of n (a value in a document a docReader wrote without error) into a
// value of type t without an error, without writing it and reading it
// back: an olm.csv.metadata value is most of a modern catalog, and it
// would otherwise be written out and read back once just to be checked.
// It follows encoding/json's rules for the types it knows (strings,
// booleans, integers, slices, string-keyed maps, structs, pointers, any,
// json.RawMessage) and says no to anything else, so a "no" only means
// "decode to find out": callers then decode for the real error.
func fitsJSON(n *declcfg.Node, t reflect.Type) bool {
	return newDocReader().fits(n, t, 0)
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

func (r *docReader) fits(n *declcfg.Node, t reflect.Type, depth int) bool {
	if n = resolve(n); n == nil || depth > maxDepth {
		return false
	}
	if t == rawMessageType {
		return true
	}
	var kind scalarKind
	var f float64
	if n.Kind == declcfg.ScalarNode {
		var err error
		if kind, _, f, err = scalar(n); err != nil {
			return false
		}
		if kind == kindNull {
			// null leaves any target as it is.
			return true
		}
	}
	switch t.Kind() {
	case reflect.Interface:
		return t.NumMethod() == 0
	case reflect.Pointer:
		return r.fits(n, t.Elem(), depth+1)
	case reflect.String:
		return n.Kind == declcfg.ScalarNode && kind == kindString
	case reflect.Bool:
		return n.Kind == declcfg.ScalarNode && kind == kindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		// canonical JSON writes an integral float below 1e21 as digits,
		// which encoding/json parses as an integer of t's size.
		return n.Kind == declcfg.ScalarNode && kind == kindNumber &&
			f == math.Trunc(f) && math.Abs(f) < 1<<62 && !reflect.Zero(t).OverflowInt(int64(f))
	case reflect.Slice:
		if n.Kind != declcfg.SequenceNode || t.Elem().Kind() == reflect.Uint8 {
			return false
		}
		for _, item := range n.Content {
			if !r.fits(item, t.Elem(), depth+1) {
				return false
			}
		}
		return true
	case reflect.Map, reflect.Struct:
		if n.Kind != declcfg.MappingNode {
			return false
		}
		var fs *jsonFields
		if t.Kind() == reflect.Struct {
			if fs = fieldsOf(t); fs == nil {
				return false
			}
		} else if t.Key().Kind() != reflect.String || t.Key().PkgPath() != "" {
			return false
		}
		ps, err := r.pairs(n, depth)
		if err != nil {
			return false
		}
		defer r.release(ps, depth)
		for _, p := range ps {
			ft := t
			if fs == nil {
				ft = t.Elem()
			} else {
				var known bool
				if ft, known = fs.lookup(p.key); !known {
					continue // encoding/json ignores unknown fields
				}
			}
			if ft == nil || !r.fits(p.val, ft, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// jsonFields are a struct's fields by JSON name.
type jsonFields struct {
	byName map[string]reflect.Type
	names  []string
}

// lookup finds a key's field as encoding/json does: the exact name, else
// the one name equal to it without regard to case. Known with a nil type
// means a match this check does not decide (several names fold alike).
func (fs *jsonFields) lookup(key string) (reflect.Type, bool) {
	if ft, ok := fs.byName[key]; ok {
		return ft, true
	}
	var found reflect.Type
	n := 0
	for _, name := range fs.names {
		if strings.EqualFold(name, key) {
			found = fs.byName[name]
			n++
		}
	}
	if n > 1 {
		return nil, true
	}
	return found, n == 1
}

var fieldCache sync.Map // reflect.Type → *jsonFields (nil: not decided here)

// fieldsOf lists t's exported fields by JSON name; nil for a struct with
// embedded fields, which this check leaves to encoding/json.
func fieldsOf(t reflect.Type) *jsonFields {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*jsonFields)
	}
	fs := &jsonFields{byName: map[string]reflect.Type{}}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			fs = nil
			break
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fs.byName[name] = f.Type
		fs.names = append(fs.names, name)
	}
	fieldCache.Store(t, fs)
	return fs
}
