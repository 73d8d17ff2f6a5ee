package offline

import (
	"bufio"
	"embed"
	"fmt"
	"strings"
)

// Word knowledge the engine reads from data rather than code: each file
// of words/ is a table, one entry per line, fields separated by tabs,
// "#" starting a comment. A word added to a file needs no change here.
//
//go:embed words/*.tsv
var wordFiles embed.FS

// wordTable reads the rows of words/name.tsv, each with fields fields.
func wordTable(name string, fields int) [][]string {
	f, err := wordFiles.Open("words/" + name + ".tsv")
	if err != nil {
		panic(fmt.Sprintf("offline: word table %s: %v", name, err)) // embedded: a build error
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		row := strings.Split(line, "\t")
		if len(row) != fields {
			panic(fmt.Sprintf("offline: words/%s.tsv line %d: %d fields, want %d", name, n, len(row), fields))
		}
		for i := range row {
			row[i] = strings.TrimSpace(row[i])
		}
		rows = append(rows, row)
	}
	return rows
}

// superlative is a ranking word: its direction and the measure it ranks
// by when the question names none ("" for what the question counts).
type superlative struct {
	desc bool
	hint string
}

func loadSuperlatives() map[string]superlative {
	out := map[string]superlative{}
	for _, r := range wordTable("superlatives", 3) {
		if r[1] != "highest" && r[1] != "lowest" {
			panic(fmt.Sprintf("offline: words/superlatives.tsv: %q: direction %q, want highest or lowest", r[0], r[1]))
		}
		hint := r[2]
		if hint == "-" {
			hint = ""
		}
		out[r[0]] = superlative{desc: r[1] == "highest", hint: hint}
	}
	return out
}

func loadMeasures() map[string][]string {
	out := map[string][]string{}
	for _, r := range wordTable("measures", 2) {
		out[r[0]] = strings.Fields(r[1])
	}
	return out
}

func loadHowAdjectives() map[string]string {
	out := map[string]string{}
	for _, r := range wordTable("how", 2) {
		out[r[0]] = r[1]
	}
	return out
}
