package pipeline

import (
	"context"
	"path/filepath"

	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/template"
)

// TemplateOptions render one template file as fbc template does.
type TemplateOptions struct {
	template.FileOptions
	// WorkDir, when set, is where paths in messages are shown from.
	WorkDir string
	// Warn receives the Finder's warnings (a bundle only found migrated).
	Warn fault.Warn
}

// RenderTemplate renders a template file as fbc template does
// (template.RenderFile, validation included). A template inside an operator
// repository (operators/<package>/catalog-templates/) takes the bundle
// images that its image map and the image cache lack from the repository
// first, as Catalogs does: the operator's published catalogs and bundle
// directories (Finder).
func RenderTemplate(ctx context.Context, file string, opts TemplateOptions) (*template.Result, error) {
	if opts.Renderer == nil {
		r, err := render.New(render.Options{})
		if err != nil {
			return nil, err
		}
		opts.Renderer = r
	}
	if file != "-" && opts.Finder == nil {
		if op, err := repo.OperatorOf(filepath.Dir(file)); err == nil {
			csvMetadata := opts.MigrateLevel == render.MigrateBundleObjectToMeta
			opts.Finder = NewFinder(op, opts.Renderer, opts.WorkDir, opts.Warn).ForLevel(csvMetadata)
		}
	}
	return template.RenderFile(ctx, file, opts.FileOptions)
}
