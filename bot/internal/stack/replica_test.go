package stack

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/bot/internal/healthz"
	"github.com/clarify-bot/clarify/internal/inflight"
	"github.com/clarify-bot/clarify/internal/kv/boltkv"
)

// fakeReplacer is a platform that takes over placeholders: it finishes a
// turn recorded with one (resumed) and replaces the others, or fails.
type fakeReplacer struct {
	got  []inflight.Placeholder
	fail func(p inflight.Placeholder) error
}

func (f *fakeReplacer) Orphaned(_ context.Context, p inflight.Placeholder) (bool, error) {
	f.got = append(f.got, p)
	if f.fail != nil {
		if err := f.fail(p); err != nil {
			return false, err
		}
	}
	return len(p.Turn) > 0, nil
}

// leave records placeholders of an earlier run in dir's placeholder file.
func leave(t *testing.T, dir string, ps ...inflight.Placeholder) {
	t.Helper()
	ctx := context.Background()
	db, err := boltkv.Open(filepath.Join(dir, InflightFile), boltkv.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := inflight.New(ctx, db, "earlier-run", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if err := st.Track(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReplaceOrphansOnFiles: with file stores every placeholder of an
// earlier run is an orphan. Those of a platform this process runs are
// taken over (a recorded turn resumed, the others replaced, each
// counted); a turn already taken over once is not run again; one whose
// replacement fails goes back for a later try; another platform's are
// left; and the store is reported up.
func TestReplaceOrphansOnFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	turn := json.RawMessage(`{"event":{"text":"how many loans this week?"}}`)
	leave(t, dir,
		inflight.Placeholder{Platform: "slack", Channel: "C1", Thread: "1.0", Message: "1.1", Turn: turn},
		inflight.Placeholder{Platform: "slack", Channel: "C1", Thread: "2.0", Message: "2.1"},
		inflight.Placeholder{Platform: "slack", Channel: "C1", Thread: "3.0", Message: "3.1", Turn: turn, Takeovers: 1},
		inflight.Placeholder{Platform: "slack", Channel: "C2", Thread: "4.0", Message: "4.1"},
		inflight.Placeholder{Platform: "discord", Channel: "D1", Message: "5.1"},
	)
	r, err := OpenReplica(ctx, &Stores{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })

	rep := &fakeReplacer{fail: func(p inflight.Placeholder) error {
		if p.Channel == "C2" {
			return errors.New("slack is down")
		}
		return nil
	}}
	health := healthz.New(nil)
	health.Set("store", healthz.Down, "not answering; retrying", 0, 0)
	var resumed, replaced []string
	r.ReplaceOrphans(ctx, Takeover{
		Replacers: map[string]OrphanReplacer{"slack": rep},
		Health:    health,
		Resumed:   func(p string) { resumed = append(resumed, p) },
		Replaced:  func(p string) { replaced = append(replaced, p) },
		Logger:    slog.New(slog.DiscardHandler),
	})

	if len(rep.got) != 4 {
		t.Fatalf("the platform got %d placeholders, want the 4 of slack: %+v", len(rep.got), rep.got)
	}
	for _, p := range rep.got {
		if p.Replica != r.ID {
			t.Errorf("placeholder %s handed over without being claimed (replica %q)", p.Message, p.Replica)
		}
		if p.Message == "3.1" && len(p.Turn) > 0 {
			t.Errorf("a turn taken over once already was handed over to run again")
		}
	}
	if !slices.Equal(resumed, []string{"slack"}) || !slices.Equal(replaced, []string{"slack", "slack"}) {
		t.Errorf("resumed %v, replaced %v; want one resumed and two replaced", resumed, replaced)
	}
	if st, _ := health.Get("store"); st.State != healthz.Up {
		t.Errorf("store %q after the placeholders were read, want up", st.State)
	}

	left, err := r.Store.Orphans(ctx, r.Alive)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, p := range left {
		msgs = append(msgs, p.Message)
	}
	slices.Sort(msgs)
	if !slices.Equal(msgs, []string{"4.1", "5.1"}) {
		t.Errorf("orphans left %v, want the failed one given back and discord's", msgs)
	}
}

// TestReplacedWhileStopping: the process is told to stop while the
// platform replaces a placeholder with the note. The note went out, so
// the record is forgotten all the same; left behind, it would replace the
// same message again at the next start.
func TestReplacedWhileStopping(t *testing.T) {
	dir := t.TempDir()
	leave(t, dir, inflight.Placeholder{Platform: "slack", Channel: "C1", Thread: "1.0", Message: "1.1"})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	r, err := OpenReplica(ctx, &Stores{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })

	// The stop arrives after the platform has the note.
	rep := &fakeReplacer{fail: func(inflight.Placeholder) error { stop(); return nil }}
	replaced := 0
	r.ReplaceOrphans(ctx, Takeover{
		Replacers: map[string]OrphanReplacer{"slack": rep},
		Health:    healthz.New(nil),
		Resumed:   func(string) {},
		Replaced:  func(string) { replaced++ },
		Logger:    slog.New(slog.DiscardHandler),
	})
	if len(rep.got) != 1 || replaced != 1 {
		t.Fatalf("platform got %d placeholders, %d counted replaced; want 1 and 1", len(rep.got), replaced)
	}
	left, err := r.Store.Orphans(context.Background(), func(context.Context, string) (bool, error) { return false, nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("records left after the note went out: %+v", left)
	}
}
