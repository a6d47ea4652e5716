package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
)

// Migration level names, in the order they run (opm's names).
const (
	MigrateNone               = "none"
	MigrateBundleObjectToMeta = "bundle-object-to-csv-metadata"
	// MigrateAll runs every migration (opm's --migrate).
	MigrateAll = "all"
)

// MigrationLevels lists the levels a user can name, in order.
var MigrationLevels = []string{MigrateNone, MigrateBundleObjectToMeta}

type migration struct {
	name string
	run  func(*declcfg.DeclarativeConfig) error
}

var migrations = []migration{
	{MigrateBundleObjectToMeta, bundleObjectsToCSVMetadata},
}

// migrationsUpTo returns the migrations up to and including level.
func migrationsUpTo(level string) ([]migration, error) {
	switch level {
	case "", MigrateNone:
		return nil, nil
	case MigrateAll:
		return migrations, nil
	}
	for i, m := range migrations {
		if m.name == level {
			return migrations[:i+1], nil
		}
	}
	return nil, fault.Errorf(fault.Usage, "unknown migration level %q: use one of %s", level, strings.Join(MigrationLevels, ", "))
}

// Migrate runs the migrations up to and including level on cfg in place.
// Bundles that cannot be migrated (no image, no CSV) are left alone, as opm
// leaves them. An unknown level is a Usage error; a bundle whose content
// does not migrate an Input error.
func Migrate(cfg *declcfg.DeclarativeConfig, level string) error {
	ms, err := migrationsUpTo(level)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if err := m.run(cfg); err != nil {
			return fault.Errorf(fault.Input, "migration %s: %w", m.name, err)
		}
	}
	return nil
}

// bundleObjectsToCSVMetadata replaces the olm.bundle.object properties of
// every bundle that has an image and a CSV with one olm.csv.metadata
// property. Bundle directories rendered without an image keep their
// objects: without an image nothing else could deliver the manifests.
func bundleObjectsToCSVMetadata(cfg *declcfg.DeclarativeConfig) error {
	for i := range cfg.Bundles {
		b := &cfg.Bundles[i]
		if b.Image == "" || declcfg.HasProperty(b.Properties, declcfg.PropertyCSVMetadata) {
			continue
		}
		csvJSON, err := declcfg.BundleCSV(b.Properties)
		if err != nil {
			return fmt.Errorf("bundle %q: %w", b.Name, err)
		}
		if csvJSON == nil {
			continue
		}
		meta, err := csvMetadata(csvJSON)
		if err != nil {
			return fmt.Errorf("bundle %q: reading its ClusterServiceVersion: %w", b.Name, err)
		}
		props := make([]declcfg.Property, 0, len(b.Properties))
		for _, p := range b.Properties {
			if p.Type != declcfg.PropertyBundleObject {
				props = append(props, p)
			}
		}
		b.Properties = append(props, declcfg.Property{Type: declcfg.PropertyCSVMetadata, Value: meta})
	}
	return nil
}

// csvMetadata builds the olm.csv.metadata value of a CSV given as JSON.
func csvMetadata(csvJSON []byte) (json.RawMessage, error) {
	csv, err := declcfg.ParseCSV(csvJSON)
	if err != nil {
		return nil, fmt.Errorf("%s", typeErrorWords(err))
	}
	// Most of it under the same names in the spec; the CRDs and API
	// services under other names; annotations and labels from the
	// metadata.
	v := csv.Spec.CSVMetadata
	v.Annotations, v.Labels = csv.Metadata.Annotations, csv.Metadata.Labels
	v.CRDDescriptions, v.APIServiceDefinitions = csv.Spec.CRDs, csv.Spec.APIServices
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
