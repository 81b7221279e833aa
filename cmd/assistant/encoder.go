package main

import (
	"time"

	"github.com/cs-assistant/assistant/providers/embed/use"
)

// loadMeaning loads the sentence encoder from the data folder (never
// fetching it: make run, make test and the image build put it there) for
// the offline answerer. Off, or without its weights, the answerer quotes
// by words alone, and the log says which and why.
func (a *app) loadMeaning() {
	if !a.cfg.SentenceEncoder {
		a.log.Info("sentence encoder off (ASSISTANT_SENTENCE_ENCODER=off): the offline answerer chooses sentences by their words")
		return
	}
	start := time.Now()
	dir := use.CacheDir(a.cfg.DataDir)
	enc, err := use.Load(dir)
	if err != nil {
		a.log.Warn("sentence encoder not loaded: the offline answerer chooses sentences by their words (make models fetches the weights)",
			"dir", dir, "err", err)
		return
	}
	a.meaning = use.NewMeaning(enc, use.DefaultCachedSentences)
	a.log.Info("sentence encoder loaded: the offline answerer chooses English sentences by meaning as well as words",
		"model", use.PackageName+"@"+use.PackageVersion, "dir", dir, "took", time.Since(start).Round(time.Millisecond).String())
}
