package dialog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

// archeryDump is an archery club of our own: each shot an archer takes
// gets a score. The lexicon relates "mark" to score and to shots, though
// "mark" is mostly a verb.
func archeryDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE archers (id INT NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL);
CREATE TABLE shots (
  id INT NOT NULL PRIMARY KEY,
  archer_id INT NOT NULL,
  score INT NOT NULL,
  shot_on DATE NOT NULL,
  CONSTRAINT fk_shots_archer FOREIGN KEY (archer_id) REFERENCES archers (id)
);
`)
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "INSERT INTO archers VALUES (%d, 'Archer %d');\n", i, i)
	}
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "INSERT INTO shots VALUES (%d, %d, %d, '2025-%02d-%02d');\n", i, i%6+1, i*7%10+1, i%12+1, i%27+1)
	}
	return b.String()
}

// TestWordThatIsMostlyAVerbIsAskedAfterAnAdjective: "the lowest mark"
// reads "mark" as a noun, so a word the schema does not use is asked
// about, not passed over.
func TestWordThatIsMostlyAVerbIsAskedAfterAnAdjective(t *testing.T) {
	t.Parallel()
	m, _, _ := managerOver(t, archeryDump(), "archery")
	r := askBilling(t, m, "c1", "what is the lowest mark?")
	if r.Kind != dialog.ReplyClarification || r.Clarification.Key.Name != "vocab" || !strings.Contains(r.Text, "'mark'") {
		t.Fatalf("want a question about 'mark', got %v: %s", r.Kind, r.Text)
	}
}
