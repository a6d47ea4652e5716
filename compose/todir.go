package compose

import (
	"context"
	"fmt"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// OutDir says where and how ToDir writes a composed catalog.
type OutDir struct {
	// Dir is the tree written (see WriteDir).
	Dir string
	// Format of the catalog files (default json).
	Format declcfg.Format
	// Replace allows replacing a Dir that is not empty.
	Replace bool
	// NoValidate writes the result without validating it first.
	NoValidate bool
}

// ToDir composes a catalog (Compose), validates it unless out.NoValidate
// (Validate: Result.Validation) and writes it to out.Dir (WriteDir) when it
// holds no errors; an invalid catalog returns validate.ErrInvalid and
// writes nothing. The result comes back, released (Close), whenever Compose
// succeeded, also with a later error; its Notes and Validation say what
// happened on the way.
func ToDir(ctx context.Context, opts Options, out OutDir) (*Result, error) {
	res, err := Compose(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	if !out.NoValidate {
		if res.Validation, err = res.Validate(ctx); err != nil {
			return res, err
		}
		if !res.Validation.Valid() {
			return res, validate.ErrInvalid
		}
	}
	err = WriteDir(ctx, res.Config, out.Dir, DirOptions{Format: out.Format, Folder: res.Folder, Replace: out.Replace, Expand: res.Expand})
	if err != nil {
		return res, fmt.Errorf("writing %s: %w", out.Dir, err)
	}
	return res, nil
}

// Validate checks the composed catalog with fbc validate's rules, a package
// at a time with its spooled values back (validate.ConfigCheck), so that
// only one package's manifests are in memory at once. An error putting a
// package's values back (a migration that fails) is compose's own and
// passes as it is.
func (r *Result) Validate(ctx context.Context) (*validate.Result, error) {
	check, err := validate.NewConfigCheck(validate.Options{})
	if err != nil {
		return nil, fmt.Errorf("validating the result: %w", err)
	}
	err = r.EachPackage(func(part *declcfg.DeclarativeConfig) error {
		if err := check.Add(ctx, part); err != nil {
			return fmt.Errorf("validating the result: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res, err := check.Result()
	if err != nil {
		return nil, fmt.Errorf("validating the result: %w", err)
	}
	return res, nil
}
