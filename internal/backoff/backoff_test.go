package backoff

import (
	"testing"
	"time"
)

func TestDoublesWithinBoundsAndResets(t *testing.T) {
	b := Backoff{Min: time.Second, Max: 8 * time.Second}
	want := []time.Duration{1, 2, 4, 8, 8, 8}
	for i, w := range want {
		d := b.Next()
		lo, hi := w*time.Second*4/5, w*time.Second*6/5
		if d < lo || d > hi {
			t.Fatalf("wait %d: %s, want %s ±20%%", i, d, w*time.Second)
		}
	}
	if b.Failures() != len(want) {
		t.Fatalf("failures %d", b.Failures())
	}
	b.Reset()
	if d := b.Next(); d > 1200*time.Millisecond {
		t.Fatalf("after Reset: %s", d)
	}
}
