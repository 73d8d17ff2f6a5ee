package offline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
)

const plantsDump = `
CREATE TABLE power_plants (Id INT PRIMARY KEY, Name VARCHAR(80), Country VARCHAR(40), Status VARCHAR(40), Capacity INT);
INSERT INTO power_plants VALUES (1, 'Ohi-3', 'Japan', 'Operational', 1127), (2, 'Ohi-4', 'Japan', 'Operational', 1127),
  (3, 'Shimane-3', 'Japan', 'Under Construction', 1325), (4, 'Monju', 'Japan', 'Shutdown', 246),
  (5, 'Gravelines-1', 'France', 'Operational', 910), (6, 'Flamanville-3', 'France', 'Under Construction', 1630),
  (7, 'Fessenheim-1', 'France', 'Shutdown', 880), (8, 'Tarapur-1', 'India', 'Operational', 150), (9, 'Hamaoka-6', 'Japan', 'Planned', 1400);
`

// A term's meanings are ranked by how the data's words relate to it:
// "operating" is nearest to the status Operational.
func TestTermMeaningsRankedByRelatedWords(t *testing.T) {
	e, _ := engineOn(t, plantsDump)
	p, err := e.Candidates(context.Background(), dialog.Request{Question: "How many operating power plants are there in France?"})
	if err != nil || len(p.Candidates) == 0 {
		t.Fatalf("%v %+v", err, p)
	}
	first := p.Candidates[0]
	if len(first.Defines) != 1 || first.Defines[0].Phrase != "operating" || first.Defines[0].Label != "Status is Operational" {
		t.Fatalf("likeliest reading defines %+v\n%s", first.Defines, first.SQL)
	}
	if !strings.Contains(first.SQL, "'Operational'") || !strings.Contains(first.SQL, "'France'") {
		t.Fatalf("likeliest reading: %s", first.SQL)
	}
}
