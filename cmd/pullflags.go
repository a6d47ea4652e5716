package cmd

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/validate"
)

// addPullFlags registers the flags that say how images are pulled, with
// opm's names where opm has them (--use-http, --skip-tls-verify). Commands
// that read images share them; checkPullFlags validates the combination.
func addPullFlags(f *pflag.FlagSet, o *image.Options) {
	f.BoolVar(&o.UseHTTP, "use-http", false, "allow plain HTTP to registries")
	f.BoolVar(&o.SkipTLSVerify, "skip-tls-verify", false, "accept any TLS certificate (and allow plain HTTP)")
	f.StringVar(&o.CacheDir, "cache-dir", "", "image blob cache (default: the user cache directory's fbc/images)")
	f.BoolVar(&o.Offline, "offline", false, "never connect to a registry: images come from the cache or local files")
	f.StringVar(&o.Platform, "platform", "", "platform picked from multi-platform images, os/arch[/variant] (default "+image.DefaultPlatform+")")
	f.DurationVar(&o.Deadline, "request-timeout", image.DefaultDeadline, "the longest one registry request may take, answer and body, before fbc gives up on the registry (a blob download gets a second more per 64 KiB)")
	// opm's deprecated global --skip-tls means --use-http.
	opmNames(f, map[string]string{"skip-tls": "use-http"})
}

func checkPullFlags(o image.Options) error {
	if o.UseHTTP && o.SkipTLSVerify {
		return usageErrorf("--use-http and --skip-tls-verify cannot both be set: --skip-tls-verify already allows plain HTTP")
	}
	if o.Deadline <= 0 {
		return usageErrorf("--request-timeout %v: want a positive duration, such as 30s or 5m", o.Deadline)
	}
	if o.Platform != "" {
		if err := image.CheckPlatform(o.Platform); err != nil {
			return usageErrorf("--platform: %v", err)
		}
	}
	return nil
}

// newRenderer makes the one Renderer of a command: images are pulled as the
// pull flags say, "-" is the command's standard input, and warnings go to
// its standard error. Local catalogs it reads are inspected for unknown
// fields, which it warns about: the blobs it returns (and the catalogs
// written from them) leave those fields out.
func newRenderer(cmd *cobra.Command, pull image.Options, jobs int) (*render.Renderer, error) {
	return render.New(renderOptions(cmd, pull, jobs))
}

// renderOptions are newRenderer's options, for a library that makes its
// Renderer itself.
func renderOptions(cmd *cobra.Command, pull image.Options, jobs int) render.Options {
	warn := warner(cmd.ErrOrStderr())
	pull.Warn = warn
	return render.Options{Image: pull, Stdin: cmd.InOrStdin(), Jobs: jobs, Warn: warn, Inspect: validate.UnknownFields, Progress: progressOf(cmd)}
}
