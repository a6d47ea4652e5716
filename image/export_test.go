package image

// Paths exposes paths to the external tests.
var Paths = paths
