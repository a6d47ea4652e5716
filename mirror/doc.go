// Package mirror plans the mirror of operator catalogs for a disconnected
// cluster from an oc-mirror v2 ImageSetConfiguration (fbc mirror plan): it
// reads the configuration with the position of every value (ParseConfig),
// cuts each mirror.operators[] catalog exactly as oc-mirror v2 cuts it, and
// makes the cut a valid catalog where oc-mirror's is not (CutCatalog), and
// lays out what a mirror needs (Plan): the filtered catalogs, the images
// their bundles name with where each goes, and the cluster resources that
// point a cluster at them, named and shaped as oc-mirror writes them.
package mirror
