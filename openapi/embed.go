// Package openapi holds the contract, openapi.yaml, the source of truth of
// the HTTP API. The server validates requests against it and serves it.
package openapi

import _ "embed"

//go:embed openapi.yaml
var spec string

// Spec returns the contract as YAML.
func Spec() []byte { return []byte(spec) }
