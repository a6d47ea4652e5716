// Package build makes a catalog directory into a catalog image, as fbc build
// does: a request that cannot be carried out is refused before any work (the
// directory, the tag, every output, the labels, the platforms), the catalog
// is validated and only a valid one is built. It stands above image, which
// packs and sends bytes and knows nothing of catalogs, and validate, which
// knows nothing of images.
package build

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/progress"
	"github.com/fbc-project/fbc/validate"
	vreport "github.com/fbc-project/fbc/validate/report"
)

// Options say how a catalog image is built and where it goes.
type Options struct {
	// Image says how the image is built: base image, platforms, labels,
	// time, server binaries, and how images are pulled and pushed (its
	// Pull.Warn receives the build's warnings).
	Image image.BuildOptions
	// Targets say where the image goes: pushed to its tag, written to
	// local outputs, or both.
	Targets image.BuildTargets
	// NoValidate builds without validating the catalog first.
	NoValidate bool
	// Progress, when set, counts the files the validation reads.
	Progress *progress.Counter
	// Validated, when set, is handed the validation's result before
	// anything is pulled or built, so that its findings (the warnings of a
	// catalog that is built, the errors of one that is not) are shown
	// before the build's own messages. An error it returns stops the
	// build.
	Validated func(*validate.Result) error
}

// EmptyError is a catalog directory without a blob to build: a wrong path,
// or a tree its .indexignore files hide.
type EmptyError struct{ Dir string }

func (e *EmptyError) Error() string {
	return fmt.Sprintf("nothing to build: %s holds no catalog blobs", e.Dir)
}

// FaultKind: nothing there is trouble with the run, not a finding.
func (e *EmptyError) FaultKind() fault.Kind { return fault.Run }

// Run builds the catalog directory dir into a catalog image and sends it to
// opts.Targets. Everything that can be refused without reading the catalog
// is refused first (image.PlanBuild: the tag, every output, labels,
// platforms); then dir must hold catalog blobs, and unless NoValidate, be a
// valid catalog (an invalid one is an Input error and nothing is built).
// When an output or the push fails, the result lists the outputs written
// before it and comes back with the error.
func Run(ctx context.Context, dir string, opts Options) (*image.BuildResult, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("catalog directory: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	plan, err := image.PlanBuild(dir, opts.Image, opts.Targets)
	if err != nil {
		return nil, err
	}
	if err := holdsBlobs(ctx, dir); err != nil {
		return nil, err
	}
	if !opts.NoValidate {
		if err := validateCatalog(ctx, dir, opts); err != nil {
			return nil, err
		}
	}
	return plan.Build(ctx)
}

// holdsBlobs refuses a directory with no catalog blobs, also when the
// catalog is not validated. It stops reading at the first document.
func holdsBlobs(ctx context.Context, dir string) error {
	errFound := errors.New("found a document")
	err := declcfg.WalkPath(ctx, dir, nil, declcfg.WalkOptions{}, func(f *declcfg.File) error {
		if len(f.Docs) > 0 {
			return errFound
		}
		return nil
	})
	switch {
	case errors.Is(err, errFound):
		return nil
	case err != nil:
		return fault.Wrap(fault.Run, err)
	}
	return &EmptyError{Dir: dir}
}

// validateCatalog validates dir and hands the result to opts.Validated: a
// catalog with errors is not built (Input), one whose files could not all be
// read is not either (Run: the verdict is unknown).
func validateCatalog(ctx context.Context, dir string, opts Options) error {
	res, err := validate.Validate(ctx, []string{dir}, validate.Options{Progress: opts.Progress})
	if err != nil {
		return err
	}
	if opts.Validated != nil {
		if err := opts.Validated(res); err != nil {
			return err
		}
	}
	if err := res.Err(); errors.Is(err, validate.ErrInvalid) {
		return fault.Errorf(fault.Input, "%s: not building an invalid catalog (%s)", dir, vreport.Summary(res))
	} else if err != nil {
		return err
	}
	return nil
}
