package main

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// extract unpacks the regular files of an npm tarball (everything under
// its top "package/" folder) into dest, keeping their executable bits.
// keep, when not nil, says which files (relative to package/) to unpack.
// Entries that would land outside dest are an error.
func extract(tarball, dest string, keep func(name string) bool) error {
	f, err := os.Open(tarball)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", tarball, err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", tarball, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue // npm tarballs hold files only; folders are implied
		}
		name, ok := strings.CutPrefix(path.Clean(hdr.Name), "package/")
		if !ok || name == "" || !filepath.IsLocal(name) {
			return fmt.Errorf("%s: entry %q is outside package/", tarball, hdr.Name)
		}
		if keep != nil && !keep(name) {
			continue
		}
		if err := writeFile(filepath.Join(dest, filepath.FromSlash(name)), tr, hdr.FileInfo().Mode()); err != nil {
			return err
		}
	}
}

// writeFile writes r to name, creating its folders; executable when any
// execute bit of mode is set.
func writeFile(name string, r io.Reader, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	perm := os.FileMode(0o644)
	if mode&0o111 != 0 {
		perm = 0o755
	}
	out, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
