package flow

import "time"

// Simulate runs user inputs through a flow without a session, for
// POST /admin/script-flows/{flowId}/simulate: Start, then Advance with
// each input in turn, keeping every Reply (their Taken lists are the
// steps taken). The first reply is Start's; when the flow ends before the
// inputs do, the rest are not used, so len(replies)-1 inputs were. All
// calls share now, so timeouts never fire. Every input is checked with
// the regexes c compiled once; slots checks slot values as in Advance.
func Simulate(c *Compiled, inputs []string, slots SlotRule, now time.Time) ([]Reply, error) {
	r, err := Start(c, now)
	if err != nil {
		return nil, err
	}
	replies := make([]Reply, 0, len(inputs)+1)
	replies = append(replies, r)
	for _, in := range inputs {
		if !Active(&r.State) {
			break
		}
		if r, err = Advance(c, r.State, in, slots, now); err != nil {
			return nil, err
		}
		replies = append(replies, r)
	}
	return replies, nil
}
