package repo

import "github.com/fbc-project/fbc/declcfg"

// Field finds key in mapping m exactly as written, as the pipelines read
// their YAML files (into Python dictionaries): the key and value nodes, nil
// when m is not a mapping or has no such key. For checks that read files
// this package does not model (a bundle's CSV and annotations).
func Field(m *declcfg.Node, key string) (keyNode, value *declcfg.Node) { return get(m, key) }
