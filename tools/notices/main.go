// Command notices writes THIRD_PARTY_NOTICES: every module in the build
// graph of ./cmd/assistant with its version, its licence kind and the
// text of its licence files from the module cache, the Go standard
// library's licence, and the notices of what the repository embeds.
//
//	go run ./tools/notices          # rewrite THIRD_PARTY_NOTICES (make notices)
//	go run ./tools/notices -check   # fail when it is stale
//
// Run it from the repository root. It fails when a module has a licence
// other than the Allowed kinds, or none it recognises.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// BinaryPkg is the binary the notices are for.
const BinaryPkg = "./cmd/assistant"

// NoticesFile is the notices file, relative to the repository root.
const NoticesFile = "THIRD_PARTY_NOTICES"

func main() {
	check := flag.Bool("check", false, "compare with the committed file instead of writing it")
	flag.Parse()
	if err := run(".", *check); err != nil {
		fmt.Fprintln(os.Stderr, "notices:", err)
		os.Exit(1)
	}
}

// run generates the notices of the repository at root and writes them,
// or with check compares them with the file.
func run(root string, check bool) error {
	text, err := Generate(root)
	if err != nil {
		return err
	}
	path := filepath.Join(root, NoticesFile)
	if check {
		old, err := os.ReadFile(path)
		if err != nil || string(old) != text {
			return fmt.Errorf("%s is stale: run `make notices` and commit it", NoticesFile)
		}
		return nil
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// Generate lists the modules, checks their licences and renders the
// notices.
func Generate(root string) (string, error) {
	mods, err := ListModules(root, BinaryPkg)
	if err != nil {
		return "", err
	}
	if err := CheckLicences(mods); err != nil {
		return "", err
	}
	std, err := StandardLibrary(root)
	if err != nil {
		return "", err
	}
	return Render(root, BinaryPkg, std, mods)
}

// CheckLicences fails when a module has no licence it recognises or one
// not Allowed.
func CheckLicences(mods []Module) error {
	var bad []string
	for _, m := range mods {
		if len(m.Kinds) == 0 {
			bad = append(bad, fmt.Sprintf("%s %s: no recognised licence in %d licence files", m.Path, m.Version, len(m.Files)))
		}
		for _, k := range m.Kinds {
			if !slices.Contains(Allowed, k) {
				bad = append(bad, fmt.Sprintf("%s %s: %s is not allowed", m.Path, m.Version, k))
			}
		}
	}
	if len(bad) > 0 {
		return errors.New("licences to review (allowed: " + strings.Join(Allowed, ", ") + "):\n  " + strings.Join(bad, "\n  "))
	}
	return nil
}
