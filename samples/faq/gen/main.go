// Command gen writes the sample FAQ PDFs into samples/faq.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cs-assistant/assistant/samples/faq"
)

func main() {
	dir := "samples/faq"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for name, data := range faq.Files() {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
