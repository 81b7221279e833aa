package turn

import (
	"regexp"
	"strings"
)

// personRequest matches a customer asking for a person in English:
// "talk to a human", "speak with an agent", "real person", "human agent".
var personRequest = regexp.MustCompile(`(?i)\b(?:(?:talk|speak|chat)\s+(?:to|with)\s+(?:a|an|the|some|your)?\s*(?:real\s+|live\s+)?(?:human|person|agent|operator|representative|someone)|(?:real|live)\s+(?:person|human|agent)|human\s+(?:agent|being|support)|customer\s+service\s+(?:agent|representative))\b`)

// asksForPerson reports whether a message asks for a person rather than
// the bot. Deliberately narrow: a question about agents ("what do your
// agents earn") is not a request.
func asksForPerson(message string) bool {
	for _, p := range [...]string{"转人工", "人工客服", "人工服务", "找人工", "真人客服", "接人工"} {
		if strings.Contains(message, p) {
			return true
		}
	}
	return personRequest.MatchString(message)
}
