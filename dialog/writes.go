package dialog

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // literal values for the parser
)

// Requests to change data. Clarify only reads: a statement that is not a
// query ("drop table orders", "update products set price=0") or a request
// that starts with a verb of changing or removing data ("delete the
// cancelled orders", "please truncate refunds") gets a plain answer and no
// query runs — nothing would reach the warehouse anyway, but the person
// should be told why rather than shown a list of order numbers.

// writeVerbs start a request to change or remove data. Verbs that also
// ask for a read ("create a list", "add up", "change revenue", "remove
// 2024" as a follow-up) are not among them; as SQL they are caught by the
// parser.
var writeVerbs = map[string]bool{
	"delete": true, "truncate": true, "insert": true, "update": true, "alter": true,
	"grant": true, "revoke": true, "erase": true, "wipe": true, "purge": true, "destroy": true,
	"overwrite": true, "upsert": true, "rename": true,
}

// removeVerbs ask to take rows out of the data when they start a new
// request ("please remove customer 58", "drop the customers table"); after
// an answer they take something out of it ("remove 2024", "drop the city
// column"), which is a read.
var removeVerbs = map[string]bool{"remove": true, "eliminate": true, "drop": true}

// politeOpeners may come before the verb of a request.
var politeOpeners = map[string]bool{"please": true, "pls": true, "can": true, "could": true, "would": true, "will": true,
	"you": true, "kindly": true, "go": true, "ahead": true, "and": true, "just": true, "now": true, "i": true, "want": true, "to": true,
	"need": true, "let's": true, "lets": true}

// readOnlyNotice is what a request to change data is told.
const readOnlyNotice = "I only read data; I can't change or delete anything. Ask me a question about it instead, for example: "

// isWriteRequest says whether text asks to change data rather than about
// it; followUp is set when it comes after an answer, which it may refine.
func isWriteRequest(text string, followUp bool) bool {
	if stmt, err := parser.New().ParseOneStmt(strings.TrimSuffix(strings.TrimSpace(text), ";"), "", ""); err == nil {
		switch stmt.(type) {
		case *ast.SelectStmt, *ast.SetOprStmt, *ast.ShowStmt, *ast.ExplainStmt:
			return false
		}
		return true
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return r == ' ' || r == ',' || r == '!' || r == '?' || r == '.' || r == ':'
	})
	for i, w := range words {
		if i >= 6 {
			break
		}
		if writeVerbs[w] || removeVerbs[w] && !followUp {
			return true
		}
		if !politeOpeners[w] {
			return false
		}
	}
	return false
}
