package guard

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSet(t *testing.T) {
	var s Set
	_, ok := s.Get("t1")
	assert.False(t, ok, "the zero Set is empty")
	s.Drop("t1")

	g1 := compile(t, words(ForbiddenWord{Word: "one"}))
	g2 := compile(t, words(ForbiddenWord{Word: "two"}))
	s.Put("t1", g1)
	s.Put("t2", g2)
	got, ok := s.Get("t1")
	require.True(t, ok)
	assert.Same(t, g1, got)

	// A swap does not disturb a Guard in use.
	held, _ := s.Get("t1")
	s.Put("t1", g2)
	got, _ = s.Get("t1")
	assert.Same(t, g2, got)
	assert.Equal(t, "***", held.CheckOutput("one").Text)

	s.Drop("t1")
	_, ok = s.Get("t1")
	assert.False(t, ok)
	got, ok = s.Get("t2")
	assert.True(t, ok)
	assert.Same(t, g2, got)
}

// Run with -race: readers check while writers swap guards in and out.
func TestSetConcurrent(t *testing.T) {
	var s Set
	guards := make([]*Guard, 4)
	for i := range guards {
		guards[i] = compile(t, words(ForbiddenWord{Word: fmt.Sprintf("w%d", i)}))
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				tenant := fmt.Sprintf("t%d", (w+i)%5)
				if i%7 == 0 {
					s.Drop(tenant)
				} else {
					s.Put(tenant, guards[i%len(guards)])
				}
			}
		}()
	}
	for r := 0; r < 8; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				if g, ok := s.Get(fmt.Sprintf("t%d", i%5)); ok {
					v := g.CheckOutput("w0 w1 w2 w3")
					assert.Len(t, v.Hits, 1)
				}
			}
		}()
	}
	wg.Wait()

	// Writers do not lose each other's changes.
	var s2 Set
	var wg2 sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg2.Add(1)
		go func() {
			defer wg2.Done()
			s2.Put(fmt.Sprintf("t%d", i), guards[0])
		}()
	}
	wg2.Wait()
	for i := 0; i < 50; i++ {
		_, ok := s2.Get(fmt.Sprintf("t%d", i))
		assert.True(t, ok, i)
	}
}

// One Guard serves concurrent checks and streams.
func TestGuardConcurrentUse(t *testing.T) {
	g := streamGuard(t)
	text := "This class is an ass, ＢＡＤ and badbad, xabcdx overlaps."
	want := g.CheckOutput(text)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				assert.Equal(t, want, g.CheckOutput(text))
				st := g.NewStream()
				var b []byte
				for k := 0; k < len(text); k += 5 {
					r, _ := st.Write(text[k:min(k+5, len(text))])
					b = append(b, r...)
				}
				r, _ := st.Close()
				assert.Equal(t, want.Text, string(append(b, r...)))
			}
		}()
	}
	wg.Wait()
}
