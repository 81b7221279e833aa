package turn

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTransferCode(t *testing.T) {
	cases := map[string]string{
		"no_evidence": "no_evidence", "low_score": "low_score", "low_answerability": "low_answerability",
		"insufficient_evidence": "insufficient_evidence", "low_confidence": "low_confidence",
		"provider_unavailable": "provider_unavailable", "intent_rule": "intent_rule",
		"flow_transfer": "flow_transfer", "invalid_input": "invalid_input", "timed_out": "timed_out",
		"high_risk:legal": "high_risk", "word:gw_0193a0c4e3b87d2a9f1c4b5e6d7a8b9c": "forbidden_word",
		"rule:gr_0193a0c4e3b87d2a9f1c4b5e6d7a8b9c":         "behaviour_rule",
		"The customer asks for a refund; a human decides.": "operator_reason",
	}
	for reason, code := range cases {
		assert.Equal(t, code, *TransferCode(&reason), reason)
	}
	assert.Nil(t, TransferCode(nil))
}
