package kv

import (
	"testing"
	"time"
)

func TestSweepsDue(t *testing.T) {
	var s Sweeps
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		at   time.Duration
		want bool
	}{
		{0, true}, {time.Second, false}, {time.Minute - 1, false}, {time.Minute, true}, {time.Minute + time.Second, false}, {3 * time.Minute, true},
	} {
		if got := s.Due(t0.Add(tc.at), time.Minute); got != tc.want {
			t.Errorf("Due at +%s = %v, want %v", tc.at, got, tc.want)
		}
	}
}
