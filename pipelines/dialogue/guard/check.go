package guard

// CheckInput checks a user's message for high risk only (forbidden words
// and behaviour rules concern what the assistant says). On a hit the
// verdict transfers and its Text is the safe text; otherwise Text is s.
func (g *Guard) CheckInput(s string) Verdict {
	var sc scan
	sc.init(g, true, len(s))
	sc.advance(s, true)
	ms := sc.matches
	if g.strIn {
		ms = append(ms, sc.regexMatches(false, false)...)
	}
	return g.inputVerdict(s, &sc.nt, ms)
}

// CheckOutput checks a generated answer. Forbidden words mask their
// spans, or withhold the answer (block: the safe text, Blocked; transfer:
// the safe text, Transfer); behaviour rules replace it, append notices or
// transfer; a high-risk hit not handled by a RuleHighRisk rule releases
// the safe text and transfers. When several withhold, the strongest
// decides the Text and Reason (high risk, then transfer, then block or
// replace; among equals the earliest), and Blocked and Transfer say
// whether any hit blocked and any transferred.
func (g *Guard) CheckOutput(s string) Verdict {
	var sc scan
	sc.init(g, false, len(s))
	sc.advance(s, true)
	ms := sc.matches
	if g.strOut {
		ms = append(ms, sc.regexMatches(false, false)...)
	}
	v, _ := g.outputVerdict(s, &sc.nt, ms)
	return v
}
