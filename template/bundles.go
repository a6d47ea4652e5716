package template

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
)

// renderJobs bounds how many bundle references render at once (registry
// pulls dominate; a few in flight hide the latency without hammering the
// registry).
const renderJobs = 4

// renderedBundle is one stub's bundle.
type renderedBundle struct {
	Bundle declcfg.Bundle
}

// RenderError is a bundle reference that could not be rendered; Err says
// why (a registry, a missing directory, not a bundle).
type RenderError struct {
	Pos declcfg.Pos
	Ref string
	Err error
}

func (e *RenderError) Error() string {
	return e.Pos.Prefix(fmt.Sprintf("rendering bundle %q: %v", e.Ref, e.Err))
}

func (e *RenderError) Unwrap() error { return e.Err }

// renderRefs renders every stub's reference (each distinct reference once)
// and checks that each holds exactly one bundle. Results are in stub order.
func renderRefs(ctx context.Context, render BundleRenderer, stubs []stub) ([]renderedBundle, error) {
	type job struct {
		ref   string
		first int // first stub naming ref
	}
	index := map[string]int{}
	var jobs []job
	for i, s := range stubs {
		if _, ok := index[s.ref]; !ok {
			index[s.ref] = len(jobs)
			jobs = append(jobs, job{ref: s.ref, first: i})
		}
	}
	results := make([][]declcfg.Bundle, len(jobs))
	errs := make([]error, len(jobs))
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(renderJobs, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				bs, err := render(inner, jobs[j].ref)
				if err != nil {
					errs[j] = err
					// A reference found nowhere offline is cheap to learn:
					// the others go on, so that the first in template
					// order is the one reported, whatever the timing.
					var p *declcfg.Finding
					if !errors.As(err, &p) {
						cancel()
					}
					continue
				}
				results[j] = bs
			}
		}()
	}
feed:
	for j := range jobs {
		select {
		case next <- j:
		case <-inner.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Report the first failure in template order, passing over the
	// cancellations the real failure caused.
	first := -1
	for j, err := range errs {
		if err != nil && (first < 0 || errors.Is(errs[first], context.Canceled) && !errors.Is(err, context.Canceled)) {
			first = j
		}
	}
	if first >= 0 {
		return nil, &RenderError{Pos: stubs[jobs[first].first].pos, Ref: jobs[first].ref, Err: errs[first]}
	}
	var ps Problems
	byBundle := map[string]int{} // bundle name -> first job rendering to it
	for j, bs := range results {
		if len(bs) != 1 {
			ps = append(ps, problemAt(stubs[jobs[j].first].pos, fmt.Sprintf("bundle reference %q resolved to %d bundles; a bundle reference must name exactly one bundle", jobs[j].ref, len(bs))))
			continue
		}
		// Two references (a tag and a digest, two registries) for one
		// bundle would put it in the catalog twice, with two images.
		key := bs[0].Package + "/" + bs[0].Name
		if k, dup := byBundle[key]; dup {
			ps = append(ps, problemAt(stubs[jobs[j].first].pos, fmt.Sprintf("image %q renders to bundle %q, which image %q (at %s) already renders to; list the bundle once, under one image",
				jobs[j].ref, bs[0].Name, jobs[k].ref, stubs[jobs[k].first].pos)))
			continue
		}
		byBundle[key] = j
	}
	if len(ps) > 0 {
		return nil, ps
	}
	out := make([]renderedBundle, len(stubs))
	for i, s := range stubs {
		// The bundle is where the template names it: what validation finds
		// wrong with it (in no channel, of no package) points at the stub
		// to change, not at a catalog file the bundle may never reach.
		b := results[index[s.ref]][0]
		b.Pos = s.pos
		out[i] = renderedBundle{Bundle: b}
	}
	return out, nil
}

// csvInfo is what the semver template copies from a bundle's CSV into the
// package blob.
type csvInfo struct {
	Description string
	Icon        *declcfg.Icon
}

// bundleCSV reads the description and first icon of a bundle's CSV, from its
// olm.bundle.object manifests, or the description from olm.csv.metadata. As
// opm's semver template reads them, each field on its own: a field of the
// wrong shape leaves it out, not the other.
func bundleCSV(b *declcfg.Bundle) (csvInfo, error) {
	raw, err := declcfg.BundleCSV(b.Properties)
	if err != nil {
		return csvInfo{}, fmt.Errorf("bundle %q: %w", b.Name, err)
	}
	if raw != nil {
		// BundleCSV's JSON is an object: a field of the wrong shape is
		// ParseCSV's only error, and the CSV holds the others.
		csv, _ := declcfg.ParseCSV(raw)
		info := csvInfo{Description: csv.Spec.Description}
		if len(csv.Spec.Icon) > 0 {
			data, err := base64.StdEncoding.DecodeString(csv.Spec.Icon[0].Data)
			if err != nil {
				return csvInfo{}, fmt.Errorf("bundle %q: CSV icon is not base64: %w", b.Name, err)
			}
			info.Icon = &declcfg.Icon{Data: data, MediaType: csv.Spec.Icon[0].MediaType}
		}
		return info, nil
	}
	for _, p := range b.Properties {
		if p.Type != declcfg.PropertyCSVMetadata {
			continue
		}
		var md declcfg.CSVMetadata
		if err := p.Decode(&md); err != nil {
			return csvInfo{}, fmt.Errorf("bundle %q: %w", b.Name, err)
		}
		return csvInfo{Description: md.Description}, nil
	}
	return csvInfo{}, nil
}
