package validate

import (
	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate/internal/shape"
)

// UnknownFields reports the fields of a document that its schema does not
// have, with the "did you mean" of fbc validate's unknown-field rule, and
// nothing else: no value is checked and no CUE is evaluated, so it is
// cheap enough to run on every document a command reads. Commands that
// write blobs back out (render) use it to say which fields they leave out.
// Documents of schemas fbc does not know are not reported.
func UnknownFields(doc declcfg.Document) []*declcfg.LoadError {
	sch, err := builtin()
	if err != nil {
		return nil
	}
	root := declcfg.Deref(doc.Node)
	entries, err := declcfg.MappingEntries(root)
	if err != nil {
		return nil
	}
	var schema string
	for _, e := range entries {
		if e.Key == "schema" {
			schema = declcfg.Deref(e.Value).Value
		}
	}
	sh := sch.schemas[schema]
	if sh == nil {
		return nil
	}
	var out []*declcfg.LoadError
	sh.UnknownFields(root, shape.Root(schema+" blob"), func(rule string, n *declcfg.Node, _ *shape.Path, msg string) {
		out = append(out, &declcfg.LoadError{Pos: declcfg.Pos{File: doc.Pos.File, Line: n.Line, Col: n.Column}, Rule: rule, Msg: msg, Warning: true})
	})
	return out
}
