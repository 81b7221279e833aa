package main

import (
	"context"
	"net/http"
	"strings"

	"github.com/cs-assistant/assistant/internal/npmfetch"
)

// fetch downloads p's tarball from registry into a temporary file in dir
// and checks it against p.Integrity. It returns the file's path; the
// caller removes it. A tarball whose hash differs is an error and is not
// kept.
func fetch(ctx context.Context, client *http.Client, registry string, p Package, dir string) (string, error) {
	url := strings.TrimRight(registry, "/") + "/" + p.TarballPath()
	return npmfetch.Download(ctx, client, url, dir, p.Integrity)
}
