package cmd

import "strings"

// konfluxProfile is the catalog profile fbc validate applies itself
// (validate.Options.Konflux); the other --profile names are bundle-content
// profiles.
const konfluxProfile = "konflux"

// takeCatalogProfiles separates the catalog profile konflux from --profile's
// values (names separated by commas) and returns the other names, for the
// bundle-content profiles, and whether konflux was named. Naming it twice
// is refused as the other profiles are.
func takeCatalogProfiles(values []string) (rest []string, konflux bool, err error) {
	for _, v := range values {
		var keep []string
		for _, item := range strings.Split(v, ",") {
			if strings.TrimSpace(item) != konfluxProfile {
				keep = append(keep, item)
				continue
			}
			if konflux {
				return nil, false, usageErrorf("--profile: profile konflux given twice")
			}
			konflux = true
		}
		if len(keep) > 0 {
			rest = append(rest, strings.Join(keep, ","))
		}
	}
	return rest, konflux, nil
}
