package dialog_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/internal/logbuf"
	"github.com/clarify-bot/clarify/internal/testwh"
)

const plantsDump = `
CREATE TABLE plants (id INT PRIMARY KEY, name VARCHAR(80), country VARCHAR(40), capacity INT);
INSERT INTO plants VALUES (1, 'Ohi', 'Japan', 4494), (2, 'Gravelines', 'France', 5460), (3, 'Bruce', 'Canada', 6384);
CREATE TABLE countries (name VARCHAR(40) PRIMARY KEY, region VARCHAR(40));
INSERT INTO countries VALUES ('Japan', 'Asia'), ('France', 'Europe'), ('Canada', 'Americas');
`

// failingManager is a manager whose catalog comes from the warehouse as
// the admin sees it, and whose queries run through exec.
func failingManager(t *testing.T, admin *warehouse.DB, exec dialog.Executor, log *logbuf.Buffer) *dialog.Manager {
	t.Helper()
	snap, err := admin.TakeSnapshot(context.Background(), warehouse.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	facts, convs := dialogtest.Stores(t)
	cat := catalog.New(snap, catalog.Options{})
	m, err := dialog.New(dialog.Config{Warehouse: "plants", Logger: log.Logger()},
		dialog.Deps{Engine: offline.New(cat, offline.Options{}), Exec: exec, Catalog: cat, Facts: facts, Admin: facts, States: convs})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var referenceRe = regexp.MustCompile(`\(reference ([a-z2-7]+)\)`)

// checkPlain asserts that the reply is a plain sentence with a reference,
// free of the server's words, and that the log holds those words under
// that reference.
func checkPlain(t *testing.T, replies []dialog.Reply, want string, log *logbuf.Buffer, serverWords ...string) {
	t.Helper()
	if len(replies) == 0 {
		t.Fatal("no reply")
	}
	text := replies[len(replies)-1].Text
	if !strings.Contains(text, want) {
		t.Fatalf("reply %q, want %q", text, want)
	}
	m := referenceRe.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("reply %q has no reference", text)
	}
	for _, w := range serverWords {
		if strings.Contains(strings.ToLower(text), strings.ToLower(w)) {
			t.Errorf("reply %q shows the server's words %q", text, w)
		}
	}
	logged := log.String()
	if !strings.Contains(logged, "ref="+m[1]) {
		t.Errorf("the log has no entry for reference %s:\n%s", m[1], logged)
	}
	for _, w := range serverWords {
		if !strings.Contains(strings.ToLower(logged), strings.ToLower(w)) {
			t.Errorf("the log lacks the server's words %q:\n%s", w, logged)
		}
	}
}

func ask(t *testing.T, m *dialog.Manager, q string) []dialog.Reply {
	t.Helper()
	replies, err := m.Handle(context.Background(), dialog.Event{Kind: dialog.EventMessage, Conversation: "c1",
		Who: dialog.Who{Platform: "test", Workspace: "w", Channel: "c", User: "u"}, Text: q})
	if err != nil {
		t.Fatal(err)
	}
	return replies
}

func TestUnknownDatabaseReadsPlainly(t *testing.T) {
	t.Parallel()
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			db := testwh.NewDatabase(t, target, plantsDump)
			wh := db.Open(t, warehouse.Config{})
			var log logbuf.Buffer
			m := failingManager(t, wh, wh, &log)
			// The database goes away behind the bot's back.
			db.Exec(t, "DROP DATABASE `"+db.Name+"`")
			replies := ask(t, m, "how many plants are there?")
			// The embedded server says the database is gone; MariaDB's open
			// connection finds the table gone with it.
			want := "I can't reach the warehouse right now"
			if target.Real {
				want = "The warehouse couldn't run any reading of that question"
			}
			checkPlain(t, replies, want, &log, db.Name)
		})
	}
}

func TestAccessDeniedReadsPlainly(t *testing.T) {
	t.Parallel()
	var target testwh.Target
	for _, tg := range testwh.Targets() {
		if tg.Real {
			target = tg
		}
	}
	if !target.Real {
		t.Skip("needs a real server (" + testwh.EnvDSN + "): the embedded one has no privileges")
	}
	db := testwh.NewDatabase(t, target, plantsDump)
	admin := db.Open(t, warehouse.Config{})
	// An account that may read countries but not plants.
	user := fmt.Sprintf("clarify_ro_%s", db.Name[len(db.Name)-6:])
	db.Exec(t, fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY 'pw'", user))
	t.Cleanup(func() { db.Exec(t, fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", user)) })
	db.Exec(t, fmt.Sprintf("GRANT SELECT ON `%s`.countries TO '%s'@'%%'", db.Name, user))
	cfg := db.Config.Clone()
	cfg.User, cfg.Passwd = user, "pw"
	limited, err := warehouse.Open(context.Background(), warehouse.Config{MySQL: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { limited.Close() })
	var log logbuf.Buffer
	m := failingManager(t, admin, limited, &log)
	replies := ask(t, m, "how many plants are there?")
	checkPlain(t, replies, "The warehouse didn't let me read the data", &log, user, "command denied")
}
