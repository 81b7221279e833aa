package eval

import (
	"fmt"
	"sort"
	"strings"
)

// Groups of questions the table reports apart. Disjoint paraphrases get a
// row of their own: they share no content word with the text, which is
// where a lexical default fails.
const (
	GroupCovered   = "covered"   // direct and paraphrased questions
	GroupDisjoint  = "disjoint"  // paraphrases sharing no content word
	GroupUncovered = "uncovered" // off-topic and near misses
	GroupNearMiss  = "near_miss" // near misses alone (also in uncovered)
)

// Tally is one row of the table.
type Tally struct {
	Dataset, Language, Channel, Group string
	// N questions; Right answered right; Handoff handed off; Wrong
	// answered without every expected string; CitationMisses answered but
	// cited nothing holding the answer.
	N, Right, Handoff, Wrong, CitationMisses int
}

// Key names the row in the baseline.
func (t Tally) Key() string { return t.Dataset + "/" + t.Channel + "/" + t.Group }

// Rate is the row's figure the baseline guards: answered right for covered
// groups, handed off for uncovered ones.
func (t Tally) Rate() float64 {
	if t.N == 0 {
		return 1
	}
	if t.Group == GroupCovered || t.Group == GroupDisjoint {
		return float64(t.Right) / float64(t.N)
	}
	return float64(t.Handoff) / float64(t.N)
}

func groupsOf(q Question) []string {
	switch q.Kind {
	case KindDisjoint:
		return []string{GroupDisjoint}
	case KindNearMiss:
		return []string{GroupUncovered, GroupNearMiss}
	case KindUncovered:
		return []string{GroupUncovered}
	}
	return []string{GroupCovered}
}

// Tallies sums outcomes into rows, by dataset, channel and group.
func Tallies(outs []Outcome) []Tally {
	rows := map[string]*Tally{}
	for _, o := range outs {
		for _, g := range groupsOf(o.Question) {
			t := Tally{Dataset: o.Dataset.Name, Language: o.Dataset.Language, Channel: o.Channel, Group: g}
			r, ok := rows[t.Key()]
			if !ok {
				r = &t
				rows[t.Key()] = r
			}
			r.N++
			switch {
			case o.Transfer:
				r.Handoff++
			case o.Right():
				r.Right++
			default:
				r.Wrong++
			}
			if o.CitationMisses() {
				r.CitationMisses++
			}
		}
	}
	out := make([]Tally, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	order := map[string]int{GroupCovered: 0, GroupDisjoint: 1, GroupUncovered: 2, GroupNearMiss: 3}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Dataset != b.Dataset {
			return a.Dataset < b.Dataset
		}
		if a.Channel != b.Channel {
			return a.Channel < b.Channel
		}
		return order[a.Group] < order[b.Group]
	})
	return out
}

// Table renders rows as a Markdown table.
func Table(rows []Tally) string {
	var b strings.Builder
	b.WriteString("| dataset | lang | channel | questions | n | answered right | wrongly handed off | answered wrong | handed off | citation misses |\n")
	b.WriteString("|---|---|---|---|--:|--:|--:|--:|--:|--:|\n")
	for _, t := range rows {
		right, wrongOff, handed := "", "", ""
		if t.Group == GroupCovered || t.Group == GroupDisjoint {
			right = pct(t.Right, t.N)
			wrongOff = pct(t.Handoff, t.N)
		} else {
			handed = pct(t.Handoff, t.N)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s | %s | %d | %s | %d |\n",
			t.Dataset, t.Language, t.Channel, t.Group, t.N, right, wrongOff, t.Wrong, handed, t.CitationMisses)
	}
	return b.String()
}

func pct(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", n, of, 100*float64(n)/float64(of))
}
