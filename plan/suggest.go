package plan

// Suggest returns the candidate nearest to word, or "" when none is near
// enough to be a likely typo. Case and spacing differences count as near.
func Suggest(word string, candidates []string) string {
	if word == "" {
		return ""
	}
	fw := FoldVenue(word)
	best, bestD := "", -1
	for _, c := range candidates {
		fc := FoldVenue(c)
		if fc == fw {
			return c
		}
		d := distance(fw, fc)
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	// Allow about one edit in three characters, at least one.
	limit := max(1, (len([]rune(fw))+2)/3)
	if bestD < 0 || bestD > limit {
		return ""
	}
	return best
}

// distance is the optimal string alignment distance (Levenshtein plus
// transpositions), on runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 {
		return len(rb)
	}
	if len(rb) == 0 {
		return len(ra)
	}
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

// didYouMean formats a suggestion as a sentence tail, or "".
func didYouMean(word string, candidates []string) string {
	if s := Suggest(word, candidates); s != "" {
		return "; did you mean " + quote(s) + "?"
	}
	return ""
}

func quote(s string) string { return `"` + s + `"` }
