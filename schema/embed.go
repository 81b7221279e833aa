// Package schema holds the numbered SQL migrations (goose format). They are
// embedded in the binary and applied at start; sqlc reads them as its schema.
package schema

import "embed"

// Migrations are the *.sql files of this folder.
//
//go:embed *.sql
var Migrations embed.FS
