package graph

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// Names that opm validate accepts but that mermaid cannot read as ids
// (quotes, spaces, line breaks) must not break the diagram: ids lose the
// offending characters, labels escape quotes the mermaid way.
func TestMermaidOddNames(t *testing.T) {
	bundle := func(name, version string) declcfg.Bundle {
		return declcfg.Bundle{Schema: "olm.bundle", Package: "p", Name: name,
			Properties: []declcfg.Property{declcfg.MustProperty("olm.package", declcfg.PackageProperty{PackageName: "p", Version: version})}}
	}
	cfg := &declcfg.DeclarativeConfig{
		Packages: []declcfg.Package{{Schema: "olm.package", Name: "p", DefaultChannel: `st"able`}},
		Channels: []declcfg.Channel{{Schema: "olm.channel", Package: "p", Name: `st"able`, Entries: []declcfg.ChannelEntry{
			{Name: `a "q" ü`}, {Name: "b\nline", Replaces: `a "q" ü`},
		}}},
		Bundles: []declcfg.Bundle{bundle(`a "q" ü`, "0.1.0"), bundle("b\nline", "1.0.0")},
	}
	pic, err := Draw(New(cfg, nil), PictureOptions{V0Semantics: true})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := pic.WriteMermaid(&out); err != nil {
		t.Fatal(err)
	}
	want := `graph LR
  classDef deprecated fill:#E8960F
  classDef skipped stroke:#FF0000,stroke-width:4px
  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px
  %% package "p"
  subgraph "p"
    %% channel "st\"able"
    subgraph p-st_able["st#quot;able"]
      p-st_able-b_line["b line"]
      p-st_able-a__q__ü["a #quot;q#quot; ü"]-- replace --> p-st_able-b_line["b line"]
      p-st_able-a__q__ü["a #quot;q#quot; ü"]
    end
  end
`
	if out.String() != want {
		t.Errorf("mermaid =\n%s\nwant\n%s", out.String(), want)
	}
}

// TestDrawWarns: what drawing skips over and an empty picture go to the
// options' Warn.
func TestDrawWarns(t *testing.T) {
	var got []string
	warn := func(msg string) { got = append(got, msg) }
	cfg := &declcfg.DeclarativeConfig{
		Packages: []declcfg.Package{{Schema: "olm.package", Name: "p", DefaultChannel: "s"}},
		Channels: []declcfg.Channel{{Schema: "olm.channel", Package: "p", Name: "s", Entries: []declcfg.ChannelEntry{{Name: "p.v1", SkipRange: "not a range"}}}},
	}
	if _, err := Draw(New(cfg, nil), PictureOptions{Warn: warn}); err != nil {
		t.Fatal(err)
	}
	if _, err := Draw(New(&declcfg.DeclarativeConfig{}, nil), PictureOptions{Warn: warn}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], `ignoring invalid SkipRange for package/edge "p"/"p.v1": `) || got[1] != "the catalog has no packages: the picture is empty" {
		t.Errorf("warnings %q", got)
	}
}
