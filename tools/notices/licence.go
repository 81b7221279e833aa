package main

import (
	"regexp"
	"slices"
	"strings"
)

// Allowed are the licence kinds the service may link: permissive ones and
// MPL-2.0 (file-level copyleft, unchanged files only).
var Allowed = []string{"Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "ISC", "MIT", "MPL-2.0"}

// space collapses runs of white space and comment markers, so that a
// licence reflowed or commented out still matches.
var space = regexp.MustCompile(`[\s/#*]+`)

// Classify names the licences (SPDX ids, sorted) whose text a licence
// file holds; none for a text it does not know.
func Classify(text string) []string {
	t := space.ReplaceAllString(strings.ToLower(text), " ")
	var kinds []string
	has := func(s ...string) bool {
		for _, x := range s {
			if !strings.Contains(t, x) {
				return false
			}
		}
		return true
	}
	if has("apache license", "version 2.0") {
		kinds = append(kinds, "Apache-2.0")
	}
	if has("mozilla public license") && (has("version 2.0") || has("v. 2.0")) {
		kinds = append(kinds, "MPL-2.0")
	}
	if has("permission is hereby granted, free of charge") {
		kinds = append(kinds, "MIT")
	}
	if has("distribute this software for any purpose with or without fee is hereby granted") {
		kinds = append(kinds, "ISC")
	}
	if has("redistribution and use in source and binary forms") {
		if has("neither the name") || has("names of its contributors may be used") {
			kinds = append(kinds, "BSD-3-Clause")
		} else {
			kinds = append(kinds, "BSD-2-Clause")
		}
	}
	slices.Sort(kinds)
	return kinds
}

// isLicenceFile reports whether a file name at a module's root is one
// whose text travels with the module: LICENSE*, LICENCE*, COPYING*,
// NOTICE*, PATENTS* (not Go source such as license.go).
func isLicenceFile(name string) bool {
	if strings.HasSuffix(name, ".go") {
		return false
	}
	n := strings.ToUpper(name)
	for _, p := range []string{"LICENSE", "LICENCE", "COPYING", "NOTICE", "PATENTS"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// isNoticeOnly reports whether a licence file is a notice or patent grant
// that accompanies a licence rather than being one.
func isNoticeOnly(name string) bool {
	n := strings.ToUpper(name)
	return strings.HasPrefix(n, "NOTICE") || strings.HasPrefix(n, "PATENTS")
}
