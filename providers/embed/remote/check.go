package remote

import (
	"fmt"
	"math"

	"github.com/cs-assistant/assistant/providers/providerhttp"
)

// checkVectors verifies a batch's answer before it is stored: one vector
// per text, each exactly dims long, every number finite. offset is the
// batch's first text in the Embed call, so messages name the caller's text.
func checkVectors(vecs [][]float32, texts, dims, offset int) error {
	if len(vecs) != texts {
		return providerhttp.Unavailable(fmt.Sprintf("the provider answered %d vectors for %d texts", len(vecs), texts), nil)
	}
	for i, v := range vecs {
		if len(v) != dims {
			return providerhttp.Unavailable(fmt.Sprintf("the provider answered a vector of %d numbers for text %d, not %d", len(v), offset+i, dims), nil)
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return providerhttp.Unavailable(fmt.Sprintf("the provider answered a non-finite number in the vector of text %d", offset+i), nil)
			}
		}
	}
	return nil
}
