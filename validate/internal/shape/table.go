package shape

import (
	"fmt"
	"sort"
)

// A Table is a set of compiled shapes in a form that Go source can spell
// as a constant composite literal (no pointers, no maps): shapes refer to
// one another by index, so definitions that nest themselves (#Constraint)
// are cycles in the table. validate embeds the table generated from its CUE
// schemas (validate/internal/cueshape.Compiler makes it); Build turns it
// into Shapes.
type Table struct {
	Shapes []Spec
	// Schemas, Properties and Files name the shapes of blob schemas, of
	// property types and of an operator repository's settings files,
	// sorted by name.
	Schemas, Properties, Files []Named
}

// Maps are the named shapes of a built Table.
type Maps struct {
	Schemas, Properties, Files map[string]*Shape
}

// Spec is one shape of a Table.
type Spec struct {
	Kinds    Kind
	Literals []Literal
	NotEqual []Literal
	Fields   []FieldSpec
	Closed   bool
	// Pattern and Elem are 1 + the index of the shape of an object's other
	// members ([string]: T) and of a list's elements; 0 for none.
	Pattern, Elem int
}

// FieldSpec is a declared field of an object shape: its name, whether it is
// required, and the index of its shape.
type FieldSpec struct {
	Name     string
	Required bool
	Shape    int
}

// Named is a shape of a Table by name.
type Named struct {
	Name  string
	Shape int
}

// Build links the table's shapes and returns those of its blob schemas,
// property types and files by name. A table whose indexes lead nowhere is
// refused.
func Build(t Table) (m Maps, err error) {
	shapes := make([]Shape, len(t.Shapes))
	ref := func(i int) (*Shape, error) {
		if i < 0 || i >= len(shapes) {
			return nil, fmt.Errorf("shape index %d out of range (%d shapes)", i, len(shapes))
		}
		return &shapes[i], nil
	}
	opt := func(i int) (*Shape, error) {
		if i == 0 {
			return nil, nil
		}
		return ref(i - 1)
	}
	for i, sp := range t.Shapes {
		s := &shapes[i]
		s.kinds, s.literals, s.notEqual, s.closed = sp.Kinds, sp.Literals, sp.NotEqual, sp.Closed
		if s.pattern, err = opt(sp.Pattern); err != nil {
			return Maps{}, err
		}
		if s.elem, err = opt(sp.Elem); err != nil {
			return Maps{}, err
		}
		if len(sp.Fields) > 0 {
			s.fields = make([]*field, len(sp.Fields))
			fields := make([]field, len(sp.Fields))
			s.byName = make(map[string]*field, len(sp.Fields))
			for j, fs := range sp.Fields {
				f := &fields[j]
				*f = field{name: fs.Name, required: fs.Required, index: j}
				if f.shape, err = ref(fs.Shape); err != nil {
					return Maps{}, err
				}
				s.fields[j] = f
				s.byName[f.name] = f
			}
		}
	}
	named := func(list []Named) (map[string]*Shape, error) {
		m := make(map[string]*Shape, len(list))
		for _, n := range list {
			s, err := ref(n.Shape)
			if err != nil {
				return nil, err
			}
			m[n.Name] = s
		}
		return m, nil
	}
	if m.Schemas, err = named(t.Schemas); err != nil {
		return Maps{}, err
	}
	if m.Properties, err = named(t.Properties); err != nil {
		return Maps{}, err
	}
	if m.Files, err = named(t.Files); err != nil {
		return Maps{}, err
	}
	return m, nil
}

// Builder makes a Table: a compiler adds shapes as it meets them, and sets
// each one's parts once compiled (a definition that nests itself refers to
// its own index before it is done).
type Builder struct {
	t Table
}

// Add reserves a shape and returns its index.
func (b *Builder) Add() int {
	b.t.Shapes = append(b.t.Shapes, Spec{})
	return len(b.t.Shapes) - 1
}

// Set gives shape i its spec.
func (b *Builder) Set(i int, sp Spec) { b.t.Shapes[i] = sp }

// Table returns the table, with the named blob schemas, property types and
// files.
func (b *Builder) Table(schemas, properties, files map[string]int) Table {
	t := b.t
	t.Schemas, t.Properties, t.Files = sortedNames(schemas), sortedNames(properties), sortedNames(files)
	return t
}

func sortedNames(m map[string]int) []Named {
	out := make([]Named, 0, len(m))
	for name, i := range m {
		out = append(out, Named{Name: name, Shape: i})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
