package dialog_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// volunteersDump is a charity's volunteers of our own, each in a town.
func volunteersDump() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE volunteers (id INT NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL, town VARCHAR(20) NOT NULL);\n")
	towns := []string{"Ely", "Wells", "Ripon"}
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "INSERT INTO volunteers VALUES (%d, 'Volunteer %d', '%s');\n", i, i, towns[i%3])
	}
	return b.String()
}

// TestDropAColumnAfterAnAnswer: "drop the town column" after an answer is
// a change to that answer, not a request to change the data; the next
// answer leaves the column out.
func TestDropAColumnAfterAnAnswer(t *testing.T) {
	t.Parallel()
	m, _, _ := managerOver(t, volunteersDump(), "charity")
	who := dialog.Who{Platform: "test", Workspace: "charity", Channel: "c", User: "ann"}
	say := func(text string) dialog.Reply {
		t.Helper()
		rs, err := m.Handle(context.Background(), dialog.Event{Kind: dialog.EventMessage, Conversation: "d1", Who: who, Text: text})
		if err != nil || len(rs) == 0 {
			t.Fatalf("%q: %v %v", text, rs, err)
		}
		return rs[len(rs)-1]
	}
	r := say("list the volunteers and their towns")
	for n := 0; r.Kind == dialog.ReplyClarification; n++ {
		if n > 3 {
			t.Fatalf("too many questions: %s", r.Text)
		}
		r = say("1")
	}
	if r.Kind != dialog.ReplyAnswer || !strings.Contains(r.Answer.SQL, "town") {
		t.Fatalf("want an answer showing the town, got %v: %s", r.Kind, r.Text)
	}
	r = say("drop the town column")
	for n := 0; r.Kind == dialog.ReplyClarification; n++ {
		if n > 3 {
			t.Fatalf("too many questions: %s", r.Text)
		}
		r = say("1")
	}
	if r.Kind != dialog.ReplyAnswer || strings.Contains(r.Answer.SQL, "town") || !strings.Contains(r.Answer.SQL, "name") {
		t.Fatalf("want the names without the town, got %v: %s\n%v", r.Kind, r.Text, r.Answer)
	}
}
