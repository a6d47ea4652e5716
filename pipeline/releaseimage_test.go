package pipeline

import (
	"errors"
	"testing"

	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/repo"
)

func TestCheckTag(t *testing.T) {
	csv := &repo.CSV{File: "op/1.2.0/manifests/op.csv.yaml", Version: "1.2.0+build.1"}
	for _, tc := range []struct {
		image, dir string
		ok         bool
	}{
		{"quay.io/ns/op:1.2.0", "op/1.2.0", true},       // the directory's name
		{"quay.io/ns/op:v1.2.0", "op/1.2.0", true},      // with a leading v
		{"quay.io/ns/op:1.2.0_build.1", "op/x", true},   // the CSV's version, '+' as '_'
		{"quay.io/ns/op@sha256:" + hex64, "op/x", true}, // a digest names no version
		{"quay.io/ns/op:1.2.1", "op/1.2.0", false},
		{"quay.io/ns/op:latest", "op/1.2.0", false},
	} {
		err := checkTag(tc.image, csv, tc.dir)
		if tc.ok != (err == nil) {
			t.Errorf("checkTag(%s, %s): %v", tc.image, tc.dir, err)
		}
		var tm *TagMismatchError
		if err != nil && (!errors.As(err, &tm) || fault.KindOf(err) != fault.Usage) {
			t.Errorf("checkTag(%s): %T %v, want a Usage *TagMismatchError", tc.image, err, err)
		}
	}
}

const hex64 = "0c13e2f4c1b4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0"
