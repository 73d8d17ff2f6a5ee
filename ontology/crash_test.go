package ontology

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/clarify-bot/clarify/internal/kv/boltkv"
)

// crashChildEnv names the store file the child process writes to.
const crashChildEnv = "CLARIFY_ONTOLOGY_CRASH_CHILD"

// TestCrashChild is not a test on its own: TestKillDuringWrites runs the
// test binary again with only this test selected and crashChildEnv set.
// It learns facts until it is killed, printing "ack ID" after each Learn
// returns — the moment the bot would tell the person "got it".
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("helper process for TestKillDuringWrites")
	}
	s, err := Open(path, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(3)
	}
	ctx := context.Background()
	for i := 0; ; i++ {
		f, err := s.Learn(ctx, Fact{Scope: ScopeUser, Owner: fmt.Sprintf("slack:T1:U%d", i%50), Warehouse: "shop",
			Phrase: fmt.Sprintf("phrase %d", i), Kind: KindValue, Target: exprTarget(strings.Repeat("t", i%300+1)), Meaning: "m"})
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(3)
		}
		// One write(2) per line: the parent never sees half an ack.
		if _, err := os.Stdout.WriteString("ack " + f.ID + "\n"); err != nil {
			os.Exit(3)
		}
	}
}

func TestKillDuringWrites(t *testing.T) {
	if os.Getenv(crashChildEnv) != "" {
		t.Skip("in the child")
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "ontology.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})

	// Read acks until enough have arrived, then SIGKILL the child while it
	// is in the middle of its next writes, and keep reading: acks printed
	// before it died were acknowledged too.
	const killAfter = 200
	acks := make(chan string)
	go func() {
		defer close(acks)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
				acks <- id
			}
		}
	}()
	var acked []string
	guard := time.After(2 * time.Minute) // a hang guard, not a timing assertion
read:
	for {
		select {
		case id, ok := <-acks:
			if !ok {
				break read
			}
			acked = append(acked, id)
			if len(acked) == killAfter && !killed {
				if err := cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				killed = true
			}
		case <-guard:
			t.Fatalf("child stalled after %d acks; stderr: %s", len(acked), stderr.String())
		}
	}
	werr := cmd.Wait()
	if !killed {
		t.Fatalf("child exited before it was killed (%v) after %d acks; stderr: %s", werr, len(acked), stderr.String())
	}
	var exitErr *exec.ExitError
	if !errors.As(werr, &exitErr) {
		t.Fatalf("child: %v", werr)
	}
	t.Logf("child killed after %d acknowledged facts", len(acked))

	s, err := Open(path, Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, id := range acked {
		if _, err := s.Get(ctx, id); err != nil {
			t.Errorf("acknowledged fact lost: %v", err)
		}
	}
	// The file is consistent: bbolt's own page check passes, and every
	// fact is reachable from its unique key.
	err = s.db.(*boltkv.DB).Bolt().View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			t.Errorf("bbolt check: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	facts, err := s.List(ctx, Filter{IncludeInactive: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) < len(acked) {
		t.Errorf("%d facts stored, %d acknowledged", len(facts), len(acked))
	}
	indexed := 0
	for _, owner := range []string{"slack:T1:U0", "slack:T1:U1"} {
		app, err := s.Applicable(ctx, Owners{User: owner}, "shop")
		if err != nil {
			t.Fatal(err)
		}
		indexed += len(app)
	}
	if indexed == 0 {
		t.Error("no facts reachable through the index")
	}
	// And it is still writable.
	if _, err := s.Learn(ctx, revenue(alice, "after crash")); err != nil {
		t.Errorf("Learn after reopen: %v", err)
	}
}
