package domain

// RecallTurns is how many of a session's newest messages memory recalls
// verbatim (for retrieval, the prompt and GET …/memory); older ones live
// on in the session's rolling summary.
const RecallTurns = 6

// DefaultChannel is a session's channel when its creator names none.
const DefaultChannel = "web"
