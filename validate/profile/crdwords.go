package profile

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// crdify reports a CRD's schema changes check by check, and a removed
// field once by its existingFieldRemoval check and again by every property
// check that compares the field with nothing ("type changed "boolean" ->
// """), as are the fields under it. A user needs one finding per field and
// edge, in words: the change, with crdify's check names kept as detail.

// crdChange is one of crdify's errors about a pair of CRDs.
type crdChange struct {
	// version is the CRD version compared, or for the served-versions
	// comparison the pair ("v1 -> v2"); "" for the whole CRD.
	version string
	served  bool
	// field is crdify's path of the property ("^.spec.size"), "" for the
	// whole CRD.
	field string
	check string
	msg   string
}

// removedPrefix starts the errors of crdify's existingFieldRemoval check:
// "removed field : VERSION.PATH".
const removedPrefix = "removed field : "

// wordCRDChanges turns crdify's errors into one sentence per field (and
// version), and one per change of the whole CRD, in a fixed order. A field
// that was removed is reported as removed, once, with the fields under it
// (crdify reports each of them removed too, and every property check
// again); the other checks of a field are joined into its sentence.
func wordCRDChanges(changes []crdChange) []string {
	type key struct {
		served         bool
		version, field string
	}
	removed := map[key]bool{}
	for i := range changes {
		c := &changes[i]
		if c.check == "existingFieldRemoval" {
			if rest, ok := strings.CutPrefix(c.msg, removedPrefix); ok {
				if v, f, ok := strings.Cut(rest, "."); ok {
					c.version, c.field = v, f
					removed[key{false, v, f}] = true
				}
			}
		}
	}
	// under returns the topmost removed field above a field, if any.
	under := func(k key) (top key, ok bool) {
		for p := parentPath(k.field); p != ""; p = parentPath(p) {
			if pk := (key{k.served, k.version, p}); removed[pk] {
				top, ok = pk, true
			}
		}
		return top, ok
	}
	groups := map[key][]crdChange{}
	var keys []key
	var whole []string
	for _, c := range changes {
		if c.field == "" {
			whole = append(whole, wordWholeCRD(c))
			continue
		}
		k := key{c.served, c.version, c.field}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], c)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.served != b.served {
			if !a.served {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.version, b.version), cmp.Compare(a.field, b.field))
	})
	below := map[key][]string{} // removed field -> the removed fields under it
	for _, k := range keys {
		if top, ok := under(k); ok && removed[k] {
			below[top] = append(below[top], k.field)
		}
	}
	var out []string
	for _, k := range keys {
		if _, ok := under(k); ok {
			continue // said with the removed field above it
		}
		subject := fmt.Sprintf("field %s of %s", fieldName(k.field), k.version)
		if k.served {
			a, b, _ := strings.Cut(k.version, " -> ")
			subject = fmt.Sprintf("field %s, between served versions %s and %s,", fieldName(k.field), a, b)
		}
		if removed[k] {
			s := subject + " was removed"
			if n := len(below[k]); n > 0 {
				s += fmt.Sprintf(", with the %d %s under it (%s)", n, plural(int64(n), "field", "fields"), strings.Join(relativeNames(k.field, below[k], 3), ", "))
			}
			out = append(out, s+" (crdify: existingFieldRemoval)")
			continue
		}
		// crdify's checks come in the order of a map: sort them.
		group := groups[k]
		slices.SortStableFunc(group, func(a, b crdChange) int { return cmp.Compare(a.check, b.check) })
		var clauses, checks []string
		for _, c := range group {
			clauses = append(clauses, wordFieldChange(c))
			if !slices.Contains(checks, c.check) {
				checks = append(checks, c.check)
			}
		}
		out = append(out, fmt.Sprintf("%s %s (crdify: %s)", subject, strings.Join(clauses, "; "), strings.Join(checks, ", ")))
	}
	slices.Sort(whole)
	return append(whole, out...)
}

// parentPath is the path of the property that holds the one at path ("" at
// the root): "^.spec.a" -> "^.spec", "^.spec.a[*]" -> "^.spec.a".
func parentPath(path string) string {
	if p, ok := strings.CutSuffix(path, "[*]"); ok {
		return p
	}
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return ""
}

// fieldName is a property's path as users write it: without crdify's root
// marker ("^.spec.size" -> "spec.size").
func fieldName(path string) string {
	if path == "^" {
		return "(the root of the schema)"
	}
	return strings.TrimPrefix(path, "^.")
}

// relativeNames names at most limit of the paths below top, relative to it,
// and how many more there are.
func relativeNames(top string, paths []string, limit int) []string {
	slices.Sort(paths)
	var out []string
	for i, p := range paths {
		if i == limit {
			out = append(out, fmt.Sprintf("%d more", len(paths)-limit))
			break
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, top), ".")
		if r, ok := strings.CutPrefix(rel, "[*]"); ok {
			rel = "items" + r // the schema of an array's items
		}
		out = append(out, rel)
	}
	return out
}

// unquote reads a value crdify wrote with %q (a JSON text or a type name),
// leaving what is not quoted as it is.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

// fromTo splits crdify's "A -> B".
func fromTo(s string) (string, string, bool) {
	a, b, ok := strings.Cut(s, " -> ")
	return unquote(a), unquote(b), ok
}

// listItems reads crdify's "[a b c]" (sorted) as "a, b, c".
func listItems(s string) string {
	s = strings.TrimSpace(sortedLists(s))
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	return strings.Join(strings.Fields(s), ", ")
}

// wordFieldChange words one of crdify's property checks as what the field
// did ("changed type from string to integer"). A message it does not know
// is kept as crdify wrote it.
func wordFieldChange(c crdChange) string {
	detail := func(prefix string) (string, bool) {
		rest, ok := strings.CutPrefix(c.msg, prefix)
		if !ok {
			return "", false
		}
		rest = strings.TrimPrefix(rest, " ")
		rest = strings.TrimPrefix(rest, ":")
		return strings.TrimSpace(rest), true
	}
	switch c.check {
	case "type":
		if d, ok := detail("type changed"); ok {
			if a, b, ok := fromTo(d); ok {
				if b == "" {
					return fmt.Sprintf("no longer has a type (it was %s)", a)
				}
				return fmt.Sprintf("changed type from %s to %s", orNone(a), b)
			}
		}
	case "required":
		if d, ok := detail("new required fields"); ok {
			return "now requires " + listItems(d)
		}
	case "default":
		if d, ok := detail("default added when there was none previously"); ok {
			return "got a default, " + unquote(d)
		}
		if d, ok := detail("default value removed"); ok {
			return "lost its default, " + unquote(d)
		}
		if d, ok := detail("default value changed"); ok {
			if a, b, ok := fromTo(d); ok {
				return fmt.Sprintf("changed its default from %s to %s", a, b)
			}
		}
	case "enum":
		if d, ok := detail("enum constraint added when there was none previously"); ok {
			return "now allows only the values " + listItems(d)
		}
		if d, ok := detail("allowed enum values removed"); ok {
			return "no longer allows the values " + listItems(d)
		}
		if d, ok := detail("allowed enum values added"); ok {
			return "now also allows the values " + listItems(d)
		}
	case "maximum", "maxLength", "maxItems", "maxProperties":
		if w, ok := boundChange(c.check, detail, "maximum", "decreased", "lowered"); ok {
			return w
		}
	case "minimum", "minLength", "minItems", "minProperties":
		if w, ok := boundChange(c.check, detail, "minimum", "increased", "raised"); ok {
			return w
		}
	case "description":
		return "changed its description"
	case "unhandled":
		return "changed in what crdify does not judge" + strings.TrimPrefix(conciseCrdifyError(c.check, c.msg), "a change crdify does not judge")
	}
	return c.check + ": " + sortedLists(c.msg)
}

// boundChange words crdify's max and min checks: "KIND constraint added
// when there was none previously : V" and "KIND MOVED : A -> B".
func boundChange(check string, detail func(string) (string, bool), kind, moved, verb string) (string, bool) {
	if d, ok := detail(kind + " constraint added when there was none previously"); ok {
		return fmt.Sprintf("got a %s of %s", check, d), true
	}
	if d, ok := detail(kind + " " + moved); ok {
		if a, b, ok := fromTo(d); ok {
			return fmt.Sprintf("%s its %s from %s to %s", verb, check, a, b), true
		}
	}
	return "", false
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// wordWholeCRD words a check of the whole CRD (scope, stored versions).
func wordWholeCRD(c crdChange) string {
	switch {
	case strings.HasPrefix(c.msg, "scope changed"):
		if a, b, ok := fromTo(strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(c.msg, "scope changed"), " :"))); ok {
			return fmt.Sprintf("its scope changed from %s to %s (crdify: %s)", a, b, c.check)
		}
	case strings.HasPrefix(c.msg, "stored versions removed"):
		return fmt.Sprintf("it no longer lists the stored versions %s (crdify: %s)", listItems(strings.TrimPrefix(c.msg, "stored versions removed :")), c.check)
	}
	return c.check + ": " + sortedLists(c.msg)
}
