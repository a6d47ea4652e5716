package declcfg

import "strings"

// Suggest returns the candidate closest to word when it is close enough to
// be a plausible typo (edit distance, ignoring case, at most a third of the
// word and at least 1), or "". Every "did you mean" of fbc comes from here.
func Suggest(word string, candidates []string) string {
	best, bestDist := "", -1
	lw := strings.ToLower(word)
	for _, c := range candidates {
		if c == "" {
			continue
		}
		d := editDistance(lw, strings.ToLower(c))
		if bestDist < 0 || d < bestDist || d == bestDist && c < best {
			best, bestDist = c, d
		}
	}
	limit := max(1, len([]rune(word))/3)
	if bestDist < 0 || bestDist > limit {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
