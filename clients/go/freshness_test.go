package client

import (
	"testing"

	"github.com/cs-assistant/assistant/internal/gencheck"
)

// TestGeneratedClientIsFresh fails when client.gen.go differs from what the
// pinned oapi-codegen makes of the contract with oapi-codegen.yaml, so
// nobody edits it by hand or forgets `make generate`.
func TestGeneratedClientIsFresh(t *testing.T) {
	gencheck.OapiCodegenFresh(t, "clients/go/oapi-codegen.yaml")
}
