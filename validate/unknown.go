package validate

import (
	"github.com/fbc-project/fbc/declcfg"
	yaml "go.yaml.in/yaml/v3"
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
	sh.unknownFields(root, rootPath(schema+" blob"), func(rule string, n *yaml.Node, _ *fieldPath, msg string) {
		out = append(out, &declcfg.LoadError{Pos: declcfg.Pos{File: doc.Pos.File, Line: n.Line, Col: n.Column}, Rule: rule, Msg: msg, Warning: true})
	})
	return out
}

// unknownFields walks n as walk does but reports only keys that s does not
// declare. Keys that match a field only without regard to case are read by
// the decoder (which warns about them), so they are not unknown; parts left
// to CUE evaluation are not looked into.
func (s *shape) unknownFields(n *yaml.Node, p *fieldPath, report shapeReport) {
	n = declcfg.Deref(n)
	if n == nil || s.residual != nil {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		entries, err := declcfg.MappingEntries(n)
		if err != nil {
			return
		}
		for _, e := range entries {
			f := s.byName[e.Key]
			if f == nil && s.caseTwin(e.Key, entries) != "" {
				continue // a duplicate key, not an unknown one
			}
			if f == nil {
				f = s.caseFold(e.Key, entries)
			}
			s.entry(n, e, f, p, report, (*shape).unknownFields)
		}
	case yaml.SequenceNode:
		if s.elem != nil {
			for i, c := range n.Content {
				s.elem.unknownFields(c, p.elem(i), report)
			}
		}
	}
}
