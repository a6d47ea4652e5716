package page

import (
	"encoding/json"

	"github.com/fbc-project/fbc/declcfg"
)

type lifecycleBlob struct {
	Package  string `json:"package"`
	Versions []struct {
		Name   string `json:"name"`
		Phases []struct {
			Name      string `json:"name"`
			StartDate string `json:"startDate"`
			EndDate   string `json:"endDate"`
		} `json:"phases"`
		PlatformCompatibility []struct {
			Name     string   `json:"name"`
			Versions []string `json:"versions"`
		} `json:"platformCompatibility"`
	} `json:"versions"`
}

// lifecycles reads the lifecycle blobs among a catalog's other blobs, by
// package: each version once (the first blob that names it wins), phases
// and platforms as written. A blob that does not decode is a warning: fbc
// validate says what is wrong with it.
func lifecycles(others []declcfg.Meta, w *warnings) map[string][]*LifecycleVersion {
	out := map[string][]*LifecycleVersion{}
	for _, m := range others {
		if m.Schema != declcfg.SchemaLifecycle {
			continue
		}
		var lb lifecycleBlob
		if err := json.Unmarshal(m.Blob, &lb); err != nil {
			w.add(m.Pos.String() + ": the " + declcfg.SchemaLifecycle + " blob does not decode, and the page leaves it out (fbc validate says why): " + err.Error())
			continue
		}
		for _, v := range lb.Versions {
			dup := false
			for _, have := range out[lb.Package] {
				dup = dup || have.Name == v.Name
			}
			if dup || v.Name == "" {
				continue
			}
			lv := &LifecycleVersion{Name: v.Name, Phases: []LifecyclePhase{}}
			for _, ph := range v.Phases {
				lv.Phases = append(lv.Phases, LifecyclePhase{Name: ph.Name, Start: ph.StartDate, End: ph.EndDate})
			}
			for _, pc := range v.PlatformCompatibility {
				lv.Platforms = append(lv.Platforms, LifecyclePlatform{Name: pc.Name, Versions: pc.Versions})
			}
			out[lb.Package] = append(out[lb.Package], lv)
		}
	}
	return out
}
