package sqlguard

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// deniedFunctions stall the server, take locks, read server files, advance
// sequences or run shell commands. Keys are lower case, as ast.CIStr.L is.
var deniedFunctions = map[string]bool{
	"sleep":                             true,
	"benchmark":                         true,
	"load_file":                         true,
	"get_lock":                          true,
	"release_lock":                      true,
	"release_all_locks":                 true,
	"is_free_lock":                      true,
	"is_used_lock":                      true,
	"master_pos_wait":                   true,
	"source_pos_wait":                   true,
	"master_gtid_wait":                  true, // MariaDB's spelling
	"wait_for_executed_gtid_set":        true,
	"wait_until_sql_thread_after_gtids": true,
	"nextval":                           true,
	"setval":                            true,
	"lastval":                           true,
	// lib_mysqludf_sys names, installed by attackers as UDFs.
	"sys_eval": true,
	"sys_exec": true,
	"sys_get":  true,
	"sys_set":  true,
}

// systemSchemas hold credentials, other sessions' SQL text or audit logs.
// information_schema is deliberately absent: it is read-only metadata the
// bot itself needs.
var systemSchemas = map[string]bool{
	"mysql":              true,
	"performance_schema": true,
	"sys":                true,
	"__internal_schema":  true, // Doris: audit log
}

// guardVisitor stops at the first refusal: Enter skips the children of the
// offending node and Leave reports failure, which aborts Accept.
type guardVisitor struct {
	refusal *Refusal
}

var _ ast.Visitor = (*guardVisitor)(nil)

func walk(stmt ast.StmtNode) *Refusal {
	v := &guardVisitor{}
	stmt.Accept(v)
	return v.refusal
}

func (v *guardVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if v.refusal == nil {
		v.refusal = check(n)
	}
	return n, v.refusal != nil
}

func (v *guardVisitor) Leave(n ast.Node) (ast.Node, bool) {
	return n, v.refusal == nil
}

// check inspects one node. Fields that ast's Accept does not visit
// (SelectIntoOpt, LockInfo.LockType) are read here on their parent.
func check(n ast.Node) *Refusal {
	switch n := n.(type) {
	case *ast.SelectStmt:
		switch n.Kind {
		case ast.SelectStmtKindTable:
			return refuse(KindNotSelect, "only SELECT statements are allowed; this is a TABLE statement (write SELECT * FROM … instead)")
		case ast.SelectStmtKindValues:
			return refuse(KindNotSelect, "only SELECT statements are allowed; this is a VALUES statement")
		}
		if n.SelectIntoOpt != nil {
			return intoRefusal(n.SelectIntoOpt.Tp)
		}
		if n.LockInfo != nil {
			switch n.LockInfo.LockType {
			case ast.SelectLockNone:
			case ast.SelectLockForShare, ast.SelectLockForShareNoWait, ast.SelectLockForShareSkipLocked:
				return refuse(KindLocking, "FOR SHARE and LOCK IN SHARE MODE take locks and are not allowed")
			default:
				return refuse(KindLocking, "FOR UPDATE takes locks and is not allowed")
			}
		}
	case *ast.FuncCallExpr:
		if n.Schema.L != "" {
			// Stored functions may modify data; a qualified name is always
			// a stored function, never a built-in.
			return refuse(KindFunction, "calling the stored function %s is not allowed, because stored functions can change data",
				fragment(n.Schema.O+"."+n.FnName.O))
		}
		if !plainName(n.FnName.O) {
			// No built-in needs quoting, and the parser restores quoted
			// names unquoted (`` () as "()", `0`() as "0()"), so such a
			// call could not even be round-tripped.
			return refuse(KindFunction, "the function name `%s` is not allowed; built-in functions have plain names", fragment(n.FnName.O))
		}
		if deniedFunctions[n.FnName.L] {
			return refuse(KindFunction, "the function %s is not allowed", fragment(upper(n.FnName.O)))
		}
	case *ast.VariableExpr:
		if n.Value != nil {
			return refuse(KindAssignment, "assigning variables (@%s := …) is not allowed in a query", fragment(n.Name))
		}
	case *ast.TableName:
		if systemSchemas[n.Schema.L] {
			return refuse(KindSystemTable, "reading the system table %s is not allowed", fragment(n.Schema.O+"."+n.Name.O))
		}
	case *ast.TableOptimizerHint:
		// scanComments refuses every /*+ already; this keeps the guard
		// closed if the parser ever accepts hints in another form.
		return refuse(KindHint, "optimizer hints such as %s are not allowed", fragment(upper(n.HintName.O)))
	}
	return nil
}

func intoRefusal(tp ast.SelectIntoType) *Refusal {
	switch tp {
	case ast.SelectIntoOutfile:
		return refuse(KindInto, "SELECT … INTO OUTFILE writes to the server and is not allowed")
	case ast.SelectIntoDumpfile:
		return refuse(KindInto, "SELECT … INTO DUMPFILE writes to the server and is not allowed")
	default:
		return refuse(KindInto, "SELECT … INTO @variable sets variables and is not allowed")
	}
}

// plainName reports whether s is an identifier that needs no quoting:
// ASCII letters, digits and underscores, not starting with a digit.
func plainName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			return false
		}
	}
	return true
}
