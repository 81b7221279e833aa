package llm

import (
	"context"
	"testing"

	"github.com/cs-assistant/assistant/domain"
)

// BenchmarkExtractiveAnswer is the offline answerer's sentence selection
// for one message over the default topK of 5 evidence units with their
// passages: part of the ≤ 1 ms p50 that answering may add per message.
func BenchmarkExtractiveAnswer(b *testing.B) {
	m := offline{}
	passage := "Our technicians assemble your furniture on the day it is delivered. It must be booked at least 3 days before the delivery date. " +
		"The service costs 39 EUR for small items and 79 EUR for wardrobes and beds. Packaging is taken away at no extra cost."
	req := domain.GenerateRequest{
		Question: "How far in advance must the assembly service be booked?",
		Evidence: []domain.EvidenceUnit{
			{Text: "It must be booked at least 3 days before the delivery date.", Context: passage, HeadingPath: []string{"Assembly service"}},
			{Text: "Our technicians assemble your furniture on the day it is delivered.", Context: passage},
			{Text: "The service costs 39 EUR for small items and 79 EUR for wardrobes and beds.", Context: passage},
			{Text: "Standard delivery is free for orders above 99 EUR.", HeadingPath: []string{"Delivery"}},
			{Text: "Express delivery arrives the next working day if you order before noon."},
		},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Generate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
