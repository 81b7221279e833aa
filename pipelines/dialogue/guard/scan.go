package guard

import "sort"

// match is a hit of one source on the normalised runes [a, b).
type match struct{ src, a, b int32 }

// scan is the matching state of one text: its normal form so far, the
// automaton's node after it, and the matches found. A whole-text check
// feeds it once; a stream feeds it delta by delta, and because the normal
// form and the automaton only ever extend, both find the same matches.
type scan struct {
	g *Guard
	// input: only high-risk sources count (a check of the user's input).
	input bool
	nt    normText
	// state is the automaton's node after nt.runes[:fed].
	state int32
	fed   int
	// matches are settled; pending are exact matches at the end of the
	// text read so far, waiting for the next rune to settle their right
	// boundary.
	matches, pending []match
}

// init prepares sc for a text of about size bytes.
func (sc *scan) init(g *Guard, input bool, size int) {
	sc.g, sc.input = g, input
	want := g.strOut
	if input {
		want = g.strIn
	}
	sc.nt.reset(size, want)
}

// advance reads s (which extends what was read before) as far as it
// normalises, atEOF when s is the whole text.
func (sc *scan) advance(s string, atEOF bool) {
	sc.nt.feed(s, atEOF)
	runes := sc.nt.runes
	n := len(runes)
	if len(sc.pending) > 0 {
		keep := sc.pending[:0]
		for _, m := range sc.pending {
			switch {
			case int(m.b) < n:
				if !isWordRune(runes[m.b]) {
					sc.matches = append(sc.matches, m)
				}
			case atEOF:
				sc.matches = append(sc.matches, m)
			default:
				keep = append(keep, m)
			}
		}
		sc.pending = keep
	}
	ac := sc.g.ac
	u := sc.state
	for i := sc.fed; i < n; i++ {
		u = ac.step(u, runes[i])
		if !ac.emits[u] {
			continue
		}
		for v := u; v > 0; v = ac.dict[v] {
			for _, p := range ac.own(v) {
				sc.found(p, int32(i+1), atEOF)
			}
		}
	}
	sc.state, sc.fed = u, n
}

// found records automaton pattern p ending at rune end, if it counts.
func (sc *scan) found(p, end int32, atEOF bool) {
	g := sc.g
	pat := g.pats[p]
	if sc.input && g.sources[pat.source].kind != HitHighRisk {
		return
	}
	runes := sc.nt.runes
	m := match{src: pat.source, a: end - g.ac.lens[p], b: end}
	if pat.left && m.a > 0 && isWordRune(runes[m.a-1]) {
		return
	}
	if pat.right {
		switch {
		case int(end) < len(runes):
			if isWordRune(runes[end]) {
				return
			}
		case !atEOF:
			sc.pending = append(sc.pending, m)
			return
		}
	}
	sc.matches = append(sc.matches, m)
}

// regexMatches runs the regular expressions over the normalised text read
// so far. stopping keeps only those of sources that withhold the answer;
// settled keeps only matches followed by at least one more rune, which
// more text cannot undo (RE2's assertions look one rune ahead at most,
// and the normal form read so far never changes), so a stream may act on
// them before the end. Empty matches are ignored.
func (sc *scan) regexMatches(stopping, settled bool) []match {
	var out []match
	str := sc.nt.str
	for _, rx := range sc.g.regexes {
		src := &sc.g.sources[rx.source]
		if sc.input && src.kind != HitHighRisk || stopping && !src.stops {
			continue
		}
		// The whole text: a guard must not let through what comes after
		// the first safere.MaxInputRunes characters; each character costs
		// at most safere.MaxStepCost all the same.
		for _, loc := range rx.re.Whole().FindAllIndex(str, -1) {
			if loc[0] == loc[1] || settled && loc[1] == len(str) {
				continue
			}
			out = append(out, match{src: rx.source, a: sc.runeAt(loc[0]), b: sc.runeAt(loc[1])})
		}
	}
	return out
}

// runeAt returns the index of the normalised rune at byte offset off of
// the normalised string (the rune count at its end).
func (sc *scan) runeAt(off int) int32 {
	o := sc.nt.off
	return int32(sort.Search(len(o), func(i int) bool { return int(o[i]) >= off }))
}
