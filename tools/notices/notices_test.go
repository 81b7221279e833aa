package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository root.
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(r, "go.mod"))
	return r
}

// TestNoticesAreCurrent fails when THIRD_PARTY_NOTICES is not what the
// generator writes for today's module graph, as after adding or updating
// a dependency; it also fails when a dependency's licence is not allowed.
func TestNoticesAreCurrent(t *testing.T) {
	r := root(t)
	fresh, err := Generate(r)
	require.NoError(t, err)
	committed, err := os.ReadFile(filepath.Join(r, NoticesFile))
	require.NoError(t, err)
	assert.True(t, fresh == string(committed), "%s is stale: run `make notices` and commit it", NoticesFile)
}

// TestEveryModuleIsListed: the graph holds the service's direct
// dependencies, each with licence text, and never this module itself.
func TestEveryModuleIsListed(t *testing.T) {
	mods, err := ListModules(root(t), BinaryPkg)
	require.NoError(t, err)
	byPath := map[string]Module{}
	for _, m := range mods {
		byPath[m.Path] = m
		assert.NotEmpty(t, m.Files, m.Path)
		assert.NotEmpty(t, m.Version, m.Path)
	}
	assert.NotContains(t, byPath, "github.com/cs-assistant/assistant")
	for _, p := range []string{"github.com/labstack/echo/v4", "github.com/jackc/pgx/v5", "github.com/qdrant/go-client", "google.golang.org/grpc"} {
		require.Contains(t, byPath, p)
	}
	assert.Equal(t, []string{"Apache-2.0"}, byPath["github.com/qdrant/go-client"].Kinds)
	assert.Equal(t, []string{"MIT"}, byPath["github.com/labstack/echo/v4"].Kinds)
	assert.Equal(t, []string{"BSD-3-Clause"}, byPath["golang.org/x/text"].Kinds)
	assert.NoError(t, CheckLicences(mods))
}

func TestClassify(t *testing.T) {
	repoLicence, err := os.ReadFile(filepath.Join(root(t), "LICENSE"))
	require.NoError(t, err)
	cases := map[string][]string{
		string(repoLicence): {"Apache-2.0"},
		"Permission is hereby granted, free of charge, to any person obtaining a copy": {"MIT"},
		"Permission to use, copy, modify, and/or distribute this software for any\n" +
			"purpose with or without fee is hereby granted, provided that": {"ISC"},
		"Mozilla Public License Version 2.0\n==================================": {"MPL-2.0"},
		"Redistribution and use in source and binary forms, with or without\n" +
			"modification, are permitted provided that": {"BSD-2-Clause"},
		"// Redistribution and use in source and binary forms, with or without\n" +
			"// modification ...\n//    * Neither the name of Google Inc. nor": {"BSD-3-Clause"},
		"GNU GENERAL PUBLIC LICENSE\nVersion 3, 29 June 2007": nil,
		"Copyright 2020 Someone. All rights reserved.":        nil,
	}
	for text, want := range cases {
		assert.Equal(t, want, Classify(text), text)
	}
}

func TestCheckLicences(t *testing.T) {
	ok := Module{Path: "example.com/ok", Version: "v1.0.0", Kinds: []string{"MIT"}}
	assert.NoError(t, CheckLicences([]Module{ok}))
	err := CheckLicences([]Module{ok,
		{Path: "example.com/none", Version: "v1.0.0", Files: []File{{Name: "LICENSE", Text: "GPL"}}},
		{Path: "example.com/gpl", Version: "v2.0.0", Kinds: []string{"GPL-3.0"}},
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "example.com/none v1.0.0: no recognised licence in 1 licence files")
	assert.Contains(t, err.Error(), "example.com/gpl v2.0.0: GPL-3.0 is not allowed")
	assert.NotContains(t, err.Error(), "example.com/ok")
}

func TestLicenceFileNames(t *testing.T) {
	for _, n := range []string{"LICENSE", "LICENSE.txt", "License.md", "LICENCE", "COPYING", "NOTICE", "NOTICE.txt", "PATENTS"} {
		assert.True(t, isLicenceFile(n), n)
	}
	for _, n := range []string{"README.md", "go.mod", "license.go"} {
		assert.False(t, isLicenceFile(n), n)
	}
	assert.True(t, isNoticeOnly("NOTICE.txt"))
	assert.False(t, isNoticeOnly("LICENSE"))
}
