package turn

// Stage names, in order: the contract's enum of a stage event's stage
// (StageEvent.stage, and a stored message's trace).
const (
	StageAuth        = "auth"
	StageSession     = "session"
	StageHandoff     = "handoff"
	StageInputGuard  = "input_guard"
	StageFlow        = "flow"
	StageIntent      = "intent"
	StageRetrieval   = "retrieval"
	StagePrompt      = "prompt"
	StageGeneration  = "generation"
	StageOutputGuard = "output_guard"
	StagePersist     = "persist"
)

// Stages lists the stage names in order.
func Stages() []string {
	return []string{StageAuth, StageSession, StageHandoff, StageInputGuard, StageFlow, StageIntent,
		StageRetrieval, StagePrompt, StageGeneration, StageOutputGuard, StagePersist}
}

// Outcome of a stage that did not run because an earlier one answered.
const OutcomeSkipped = "skipped"

// outcomeDryRun is the persist stage's outcome in a dry run: nothing was
// written.
const outcomeDryRun = "dry_run"
