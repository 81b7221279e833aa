package main

import (
	"fmt"
	"strings"
	"time"
)

// conversation holds a short customer conversation: a greeting answered by
// a fixed rule, a covered question answered from the FAQ, an uncovered one
// and a high-risk one handed over, then the first reply's stage trace.
func (c client) conversation() {
	step("Add an intent rule for greetings, then hold a conversation")
	rule := map[string]any{"name": "Greeting " + time.Now().Format("150405.000"), "keywords": []string{"hello", "你好"},
		"responseType": "fixed", "fixedText": "Hello! Ask me about refunds, shipping or warranties.", "priority": 10}
	c.call("POST", "/admin/intent-rules", rule, nil)
	var session map[string]any
	c.call("POST", "/chat/sessions", map[string]any{"channel": "demo"}, &session)
	id := session["id"].(string)
	for _, m := range []string{"Hello!", "How long do approved refunds take to reach my payment method?",
		"Do you sell concert tickets?", "I want to kill myself"} {
		var r map[string]any
		c.call("POST", "/chat/sessions/"+id+"/messages", map[string]any{"message": m}, &r)
		fmt.Printf("   customer: %s\n   assistant [%s]: %s\n", m, r["responseType"],
			strings.ReplaceAll(fmt.Sprint(r["answer"]), "\n", "\n     "))
		if r["shouldTransfer"] == true {
			fmt.Printf("     → hand-off: %v\n", r["transferReason"])
		}
	}
	step("The stored trace of the session's first reply (GET /admin/sessions/{id})")
	var s map[string]any
	c.call("GET", "/admin/sessions/"+id, nil, &s)
	for _, msg := range s["messages"].([]any) {
		m := msg.(map[string]any)
		if m["role"] != "assistant" {
			continue
		}
		for _, st := range m["monitoring"].(map[string]any)["stages"].([]any) {
			x := st.(map[string]any)
			fmt.Printf("   %-13s %-16v %.3f ms\n", x["stage"], x["outcome"], x["durationMs"])
		}
		break
	}
}
