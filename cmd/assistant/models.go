package main

import (
	"net/http"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/llm"
)

// buildChatModel makes the model a tenant's configuration names.
func buildChatModel(cfg domain.LLMConfig) (domain.ChatModel, error) {
	return llm.New(cfg, http.DefaultClient)
}
