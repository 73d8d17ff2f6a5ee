package offline_test

import (
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// readTSV reads a set of words/ as the engine does: each row its word,
// then its fields.
func readTSV(t *testing.T, set string) [][]string {
	t.Helper()
	var rows [][]string
	for _, e := range words.Entries(set) {
		rows = append(rows, append([]string{e.Word}, e.Fields...))
	}
	if len(rows) == 0 {
		t.Fatalf("no words in set %q", set)
	}
	return rows
}

// TestSuperlativesFile: every word of words/superlatives.tsv ranks a
// figure the question names in the direction the file gives, on a van
// fleet of our own ("which depot has the <word> fleet size?").
func TestSuperlativesFile(t *testing.T) {
	e, _ := engineOn(t, vanFleetDump())
	for _, r := range readTSV(t, "superlative") {
		word, dir := r[0], r[1]
		q := "which depot has the " + word + " fleet size?"
		sql := proposal(t, e, q).Candidates[0].SQL
		up := strings.ToUpper(sql)
		highest := strings.Contains(up, "MAX(VAN_DEPOTS.FLEET_SIZE)") || strings.Contains(up, "VAN_DEPOTS.FLEET_SIZE DESC")
		lowest := strings.Contains(up, "MIN(VAN_DEPOTS.FLEET_SIZE)") || strings.Contains(up, "ORDER BY VAN_DEPOTS.FLEET_SIZE\n") || strings.HasSuffix(strings.TrimSpace(up), "ORDER BY VAN_DEPOTS.FLEET_SIZE LIMIT 1") || strings.Contains(up, "VAN_DEPOTS.FLEET_SIZE ASC")
		if dir == "highest" && !highest || dir == "lowest" && !lowest {
			t.Errorf("%q (%s): the likeliest reading is\n%s", q, dir, sql)
		}
	}
}

// TestHowAdjectivesFile: every adjective of words/how.tsv asks for its
// measure's figure ("how big is …" → the area), on parks of our own with
// one column for each measure of words/measures.tsv, named by its first
// word.
func TestHowAdjectivesFile(t *testing.T) {
	measures := map[string]string{}
	cols := []string{"name VARCHAR(20) PRIMARY KEY"}
	for _, r := range readTSV(t, "measure") {
		first := strings.Fields(r[1])[0]
		measures[r[0]] = first
		if !strings.Contains(strings.Join(cols, " "), first+" ") {
			cols = append(cols, first+" INT")
		}
	}
	dump := "CREATE TABLE parks (" + strings.Join(cols, ", ") + ");\n"
	for i, n := range []string{"Elm Park", "Oak Park", "Ash Park"} {
		vals := []string{"'" + n + "'"}
		for range cols[1:] {
			vals = append(vals, strings.Repeat("7", i+2))
		}
		dump += "INSERT INTO parks VALUES (" + strings.Join(vals, ", ") + ");\n"
	}
	e, _ := engineOn(t, dump)
	for _, r := range readTSV(t, "how") {
		adj, measure := r[0], r[1]
		col := measures[measure]
		q := "how " + adj + " is Oak Park?"
		sql := proposal(t, e, q).Candidates[0].SQL
		if !strings.Contains(sql, "parks."+col) {
			t.Errorf("%q (%s → %s): the likeliest reading is\n%s", q, measure, col, sql)
		}
	}
}
