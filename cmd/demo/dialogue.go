package main

import (
	"fmt"
	"strings"
	"time"
)

// conversation holds a short customer conversation: a greeting answered by
// a fixed rule, a covered question answered from the FAQ, an uncovered one
// handed over (the bot then waits for a person, whom the agent API brings
// in), a high-risk one handed over in a session of its own, then the first
// reply's stage trace.
func (c client) conversation() {
	step("Add an intent rule for greetings, then hold a conversation")
	rule := map[string]any{"name": "Greeting " + time.Now().Format("150405.000"), "keywords": []string{"hello", "你好"},
		"responseType": "fixed", "fixedText": "Hello! Ask me about refunds, shipping or warranties.", "priority": 10}
	c.call("POST", "/admin/intent-rules", rule, nil)
	var session map[string]any
	c.call("POST", "/chat/sessions", map[string]any{"channel": "demo"}, &session)
	id := session["id"].(string)
	for _, m := range []string{"Hello!", "How long do approved refunds take to reach my payment method?",
		"Do you sell concert tickets?", "Are you still there?"} {
		c.say(id, m)
	}
	c.agent(id)
	// A high-risk message hands over at once, in a session of its own.
	var other map[string]any
	c.call("POST", "/chat/sessions", map[string]any{"channel": "demo"}, &other)
	c.say(other["id"].(string), "I want to kill myself")
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

// say sends a customer message and prints the reply.
func (c client) say(session, m string) {
	var r map[string]any
	c.call("POST", "/chat/sessions/"+session+"/messages", map[string]any{"message": m}, &r)
	fmt.Printf("   customer: %s\n   assistant [%s]: %s\n", m, r["responseType"],
		strings.ReplaceAll(fmt.Sprint(r["answer"]), "\n", "\n     "))
	if r["shouldTransfer"] == true {
		fmt.Printf("     → hand-off: %v (session %v)\n", r["transferReason"], r["handoffState"])
	}
}

// agent works the hand-off queue: a person claims the waiting
// conversation, replies into it and gives it back to the bot.
func (c client) agent(session string) {
	step("An agent takes the conversation (GET /admin/handoffs, claim, reply, release)")
	var queue map[string]any
	c.call("GET", "/admin/handoffs", nil, &queue)
	for _, it := range queue["items"].([]any) {
		h := it.(map[string]any)["handoff"].(map[string]any)
		if h["sessionId"] == session {
			fmt.Printf("   waiting: %v (reason %v, language %v)\n", h["sessionId"], h["reason"], h["language"])
		}
	}
	who := map[string]any{"agentId": "agent-demo"}
	c.call("POST", "/admin/handoffs/"+session+"/claim", who, nil)
	reply := map[string]any{"agentId": "agent-demo", "text": "Hi, this is Sam from the team: we do not sell tickets, sorry!"}
	c.call("POST", "/admin/handoffs/"+session+"/messages", reply, nil)
	fmt.Printf("   agent: %s\n", reply["text"])
	c.call("POST", "/admin/handoffs/"+session+"/release", who, nil)
	fmt.Println("   released: the bot answers this session again")
}
