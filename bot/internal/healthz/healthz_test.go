package healthz

import (
	"testing"
	"time"
)

// TestRegistry: Since moves only when a state changes, Hear hears only
// changes, and one component down makes the whole degraded with the
// warehouses' short form.
func TestRegistry(t *testing.T) {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	h := New(func() time.Time { return now })
	var heard []string
	h.Hear = func(name, state string) { heard = append(heard, name+"="+state) }

	h.Set("warehouse:fleet", Up, "", 0, 0)
	changed := h.Watch()
	now = now.Add(time.Minute)
	h.Set("warehouse:fleet", Up, "", 0, 0)
	select {
	case <-changed:
	default:
		t.Fatal("Watch's channel was not closed by Set")
	}
	if st, _ := h.Get("warehouse:fleet"); !st.Since.Equal(now.Add(-time.Minute)) {
		t.Fatalf("Since moved without a change of state: %v", st.Since)
	}
	if b := h.Body(); b.Status != "ok" || b.Warehouses["fleet"] != "ok" {
		t.Fatalf("Body = %+v, want ok", b)
	}

	h.Set("warehouse:fleet", Down, "not answering", 2, 30*time.Second)
	st, _ := h.Get("warehouse:fleet")
	if !st.Since.Equal(now) || st.Failures != 2 || st.NextRetry == nil || !st.NextRetry.Equal(now.Add(30*time.Second)) {
		t.Fatalf("after going down: %+v", st)
	}
	if b := h.Body(); b.Status != "degraded" || b.Warehouses["fleet"] != "down: not answering" {
		t.Fatalf("Body = %+v, want degraded", b)
	}
	if want := []string{"warehouse:fleet=up", "warehouse:fleet=down"}; len(heard) != 2 || heard[0] != want[0] || heard[1] != want[1] {
		t.Fatalf("heard %v, want %v", heard, want)
	}
}
