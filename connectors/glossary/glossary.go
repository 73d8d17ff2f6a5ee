// Package glossary reads a team glossary: the meanings a team decided once
// for everyone (measures, dimensions, named filters, terms and their
// synonyms), relationships the schema does not declare, and verified
// queries. It checks every expression against a warehouse through the
// read-only guard, and turns the glossary into workspace-scope ontology
// facts with provenance "glossary:NAME".
//
// Every item keeps the line it was written on, so that each problem is
// reported as FILE:LINE: message.
package glossary

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/clarify-bot/clarify/internal/qnorm"
)

// ErrInvalid is wrapped by Parse and Check errors: the glossary has
// problems, listed by the *Problems error.
var ErrInvalid = errors.New("invalid glossary")

// Glossary is one parsed file.
type Glossary struct {
	// File is the path it was read from (for messages).
	File string
	// Name is the source name: facts get Source "glossary:"+Name. Default:
	// the file name without its extension.
	Name string
	// Warehouse is the configured warehouse the glossary describes.
	Warehouse string
	// Workspaces are the owner keys of the workspaces it applies to
	// ("slack:T0123", "discord:123456", "console:local").
	Workspaces    []string
	Terms         []Term
	Measures      []Measure
	Dimensions    []Dimension
	Filters       []Filter
	Relationships []Relationship
	Verified      []VerifiedQuery
	// Synonyms are the team's words for tables and columns (the
	// top-level synonyms: mapping, "customers: [clients, buyers]").
	Synonyms []Synonym
}

// Synonym is the team's words for one table or column: Means is a table
// ("customers") or a table.column ("shipments.carrier").
type Synonym struct {
	Line  int
	Means string
	Words []string
}

// Term is a business word that means one of the glossary's measures,
// dimensions or filters.
type Term struct {
	Named
	// Means names the measure, dimension or filter the term stands for.
	Means     string
	MeansLine int
}

// Named are the parts every glossary entry has: the line it starts on, its
// name, what it means in words, and other words for it.
type Named struct {
	Line        int
	Name        string
	Description string
	Synonyms    []string
}

// Measure is an aggregate expression: SUM(orders.net_amount).
type Measure struct {
	Named
	Expr     string
	ExprLine int
}

// Dimension is a column or expression people group and filter by.
type Dimension struct {
	Named
	Expr     string
	ExprLine int
	Samples  []string
}

// Filter is a named predicate over one table (Table, or the one table its
// columns name).
type Filter struct {
	Named
	Table     string
	Where     string
	WhereLine int
}

// Relationship is a join the schema does not declare: From (the
// referencing table.column) = To (the referenced table.column).
type Relationship struct {
	Line        int
	Name        string
	Description string
	From, To    string
}

// VerifiedQuery is a question with the SQL the team checked answers it.
type VerifiedQuery struct {
	Line       int
	Question   string
	SQL        string
	SQLLine    int
	VerifiedBy string
	VerifiedAt string
}

// Problem is one thing wrong with a glossary, at a line of its file.
type Problem struct {
	File string
	Line int
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg) }

// Problems is the error of a glossary with problems; each prints as
// FILE:LINE: message, one per line.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Is makes errors.Is(err, ErrInvalid) hold for any Problems.
func (ps Problems) Is(target error) bool { return target == ErrInvalid }

// ReadFile reads and parses a glossary file.
func ReadFile(path string) (*Glossary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read glossary: %w", err)
	}
	return Parse(path, b)
}

// Parse reads a glossary. Unknown keys, missing fields and duplicate
// names are problems with their lines; the error is then a Problems.
func Parse(file string, data []byte) (*Glossary, error) {
	g := &Glossary{File: file, Name: strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))}
	p := &parser{file: file}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		line := 1
		if n, ok := yamlErrLine(err.Error()); ok {
			line = n
		}
		return nil, Problems{{File: file, Line: line, Msg: "not valid YAML: " + stripYAMLPrefix(err.Error())}}
	}
	if len(doc.Content) == 0 {
		return nil, Problems{{File: file, Line: 1, Msg: "the file is empty"}}
	}
	p.top(g, doc.Content[0])
	p.checkNames(g)
	if len(p.problems) > 0 {
		return g, p.problems
	}
	return g, nil
}

// parser walks the YAML nodes, collecting problems instead of stopping at
// the first, so one run reports every mistake.
type parser struct {
	file     string
	problems Problems
}

func (p *parser) addf(line int, format string, args ...any) {
	p.problems = append(p.problems, Problem{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// fields walks a mapping node, calling set for each key; a key set does
// not know is reported.
func (p *parser) fields(n *yaml.Node, what string, set func(key string, v *yaml.Node) bool) {
	if n.Kind != yaml.MappingNode {
		p.addf(n.Line, "%s must be a mapping of keys to values", what)
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			p.addf(k.Line, "%s: key %q is given twice", what, k.Value)
			continue
		}
		seen[k.Value] = true
		if !set(k.Value, v) {
			p.addf(k.Line, "%s: unknown key %q", what, k.Value)
		}
	}
}

func (p *parser) str(v *yaml.Node, what string) string {
	if v.Kind != yaml.ScalarNode {
		p.addf(v.Line, "%s must be text", what)
		return ""
	}
	return strings.TrimSpace(v.Value)
}

func (p *parser) strs(v *yaml.Node, what string) []string {
	switch v.Kind {
	case yaml.ScalarNode:
		if s := strings.TrimSpace(v.Value); s != "" {
			return []string{s}
		}
		return nil
	case yaml.SequenceNode:
		var out []string
		for _, c := range v.Content {
			if s := p.str(c, what); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	p.addf(v.Line, "%s must be a list of text", what)
	return nil
}

// items walks a sequence of mappings.
func (p *parser) items(v *yaml.Node, what string, each func(item *yaml.Node)) {
	if v.Kind != yaml.SequenceNode {
		p.addf(v.Line, "%s must be a list", what)
		return
	}
	for _, c := range v.Content {
		each(c)
	}
}

func (p *parser) top(g *Glossary, root *yaml.Node) {
	p.fields(root, "glossary", func(key string, v *yaml.Node) bool {
		switch key {
		case "name":
			g.Name = p.str(v, "name")
		case "warehouse":
			g.Warehouse = p.str(v, "warehouse")
		case "workspaces":
			g.Workspaces = p.strs(v, "workspaces")
		case "terms":
			p.items(v, "terms", func(n *yaml.Node) { g.Terms = append(g.Terms, p.term(n)) })
		case "measures":
			p.items(v, "measures", func(n *yaml.Node) { g.Measures = append(g.Measures, p.measure(n)) })
		case "dimensions":
			p.items(v, "dimensions", func(n *yaml.Node) { g.Dimensions = append(g.Dimensions, p.dimension(n)) })
		case "filters":
			p.items(v, "filters", func(n *yaml.Node) { g.Filters = append(g.Filters, p.filter(n)) })
		case "relationships":
			p.items(v, "relationships", func(n *yaml.Node) { g.Relationships = append(g.Relationships, p.relationship(n)) })
		case "synonyms":
			p.synonyms(g, v)
		case "verified_queries":
			p.items(v, "verified_queries", func(n *yaml.Node) { g.Verified = append(g.Verified, p.verified(n)) })
		default:
			return false
		}
		return true
	})
}

// entry reads one named entry into e: the keys every entry has (see
// named), the entry's own with more (false for a key it does not know),
// and reports a missing name.
func (p *parser) entry(n *yaml.Node, what string, e *Named, more func(key string, v *yaml.Node) bool) {
	e.Line = n.Line
	p.fields(n, what, func(key string, v *yaml.Node) bool {
		return p.named(key, v, e) || more(key, v)
	})
	p.need(e.Line, what, "name", e.Name)
}

// named reads the keys every entry has into e; false for any other key.
func (p *parser) named(key string, v *yaml.Node, e *Named) bool {
	switch key {
	case "name":
		e.Name = p.str(v, "name")
	case "description":
		e.Description = p.str(v, "description")
	case "synonyms":
		e.Synonyms = p.strs(v, "synonyms")
	default:
		return false
	}
	return true
}

func (p *parser) term(n *yaml.Node) Term {
	var t Term
	p.entry(n, "term", &t.Named, func(key string, v *yaml.Node) bool {
		if key != "means" {
			return false
		}
		t.Means, t.MeansLine = p.str(v, "means"), v.Line
		return true
	})
	p.need(t.Line, "term "+quoted(t.Name), "means (the measure, dimension or filter it stands for)", t.Means)
	return t
}

func (p *parser) measure(n *yaml.Node) Measure {
	var m Measure
	p.entry(n, "measure", &m.Named, func(key string, v *yaml.Node) bool {
		if key != "expr" {
			return false
		}
		m.Expr, m.ExprLine = p.str(v, "expr"), v.Line
		return true
	})
	p.need(m.Line, "measure "+quoted(m.Name), "expr", m.Expr)
	return m
}

func (p *parser) dimension(n *yaml.Node) Dimension {
	var d Dimension
	p.entry(n, "dimension", &d.Named, func(key string, v *yaml.Node) bool {
		switch key {
		case "expr":
			d.Expr, d.ExprLine = p.str(v, "expr"), v.Line
		case "samples":
			d.Samples = p.strs(v, "samples")
		default:
			return false
		}
		return true
	})
	p.need(d.Line, "dimension "+quoted(d.Name), "expr", d.Expr)
	return d
}

func (p *parser) filter(n *yaml.Node) Filter {
	var f Filter
	p.entry(n, "filter", &f.Named, func(key string, v *yaml.Node) bool {
		switch key {
		case "table":
			f.Table = p.str(v, "table")
		case "where":
			f.Where, f.WhereLine = p.str(v, "where"), v.Line
		default:
			return false
		}
		return true
	})
	p.need(f.Line, "filter "+quoted(f.Name), "where", f.Where)
	return f
}

func (p *parser) relationship(n *yaml.Node) Relationship {
	r := Relationship{Line: n.Line}
	p.fields(n, "relationship", func(key string, v *yaml.Node) bool {
		switch key {
		case "name":
			r.Name = p.str(v, "name")
		case "description":
			r.Description = p.str(v, "description")
		case "from":
			r.From = strings.ToLower(p.str(v, "from"))
		case "to":
			r.To = strings.ToLower(p.str(v, "to"))
		default:
			return false
		}
		return true
	})
	for _, side := range [][2]string{{"from", r.From}, {"to", r.To}} {
		if t, c, ok := strings.Cut(side[1], "."); !ok || !isIdent(t) || !isIdent(c) {
			p.addf(r.Line, "relationship: %s must be table.column, not %q", side[0], side[1])
		}
	}
	return r
}

// synonyms reads the top-level mapping of tables and columns to the
// team's words for them.
func (p *parser) synonyms(g *Glossary, v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		p.addf(v.Line, "synonyms must map a table or table.column to the words for it")
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, ws := v.Content[i], v.Content[i+1]
		means := strings.ToLower(strings.TrimSpace(k.Value))
		t, c, col := strings.Cut(means, ".")
		if !isIdent(t) || col && !isIdent(c) {
			p.addf(k.Line, "synonyms: %q must be a table or table.column", k.Value)
			continue
		}
		s := Synonym{Line: k.Line, Means: means, Words: p.strs(ws, "synonyms of "+quoted(k.Value))}
		if len(s.Words) == 0 {
			p.addf(k.Line, "synonyms: %q has no words", k.Value)
			continue
		}
		g.Synonyms = append(g.Synonyms, s)
	}
}

func (p *parser) verified(n *yaml.Node) VerifiedQuery {
	q := VerifiedQuery{Line: n.Line}
	p.fields(n, "verified query", func(key string, v *yaml.Node) bool {
		switch key {
		case "question":
			q.Question = p.str(v, "question")
		case "sql":
			q.SQL, q.SQLLine = p.str(v, "sql"), v.Line
		case "verified_by":
			q.VerifiedBy = p.str(v, "verified_by")
		case "verified_at":
			q.VerifiedAt = p.str(v, "verified_at")
		default:
			return false
		}
		return true
	})
	p.need(q.Line, "verified query", "question", q.Question)
	p.need(q.Line, "verified query "+quoted(q.Question), "sql", q.SQL)
	p.need(q.Line, "verified query "+quoted(q.Question), "verified_by (who checked it)", q.VerifiedBy)
	return q
}

func (p *parser) need(line int, what, field, value string) {
	if value == "" {
		p.addf(line, "%s has no %s", what, field)
	}
}

// checkNames reports names given twice and terms that mean nothing the
// glossary defines.
func (p *parser) checkNames(g *Glossary) {
	defined := map[string]int{}
	def := func(name string, line int) {
		k := strings.ToLower(name)
		if k == "" {
			return
		}
		if first, dup := defined[k]; dup {
			p.addf(line, "%q is already defined on line %d", name, first)
			return
		}
		defined[k] = line
	}
	for _, m := range g.Measures {
		def(m.Name, m.Line)
	}
	for _, d := range g.Dimensions {
		def(d.Name, d.Line)
	}
	for _, f := range g.Filters {
		def(f.Name, f.Line)
	}
	for _, t := range g.Terms {
		if t.Means != "" {
			if _, ok := defined[strings.ToLower(t.Means)]; !ok {
				p.addf(t.MeansLine, "term %q means %q, which is no measure, dimension or filter of this glossary", t.Name, t.Means)
			}
		}
	}
	for _, t := range g.Terms {
		def(t.Name, t.Line)
	}
	questions := map[string]int{}
	for _, q := range g.Verified {
		k := qnorm.Question(q.Question)
		if first, dup := questions[k]; dup && k != "" {
			p.addf(q.Line, "verified question %q is the same as the one on line %d", q.Question, first)
			continue
		}
		questions[k] = q.Line
	}
}

func quoted(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("%q", s)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9') {
			return false
		}
	}
	return true
}

// yamlErrLine finds "line N" in a yaml error message.
func yamlErrLine(msg string) (int, bool) {
	i := strings.Index(msg, "line ")
	if i < 0 {
		return 0, false
	}
	var n int
	if _, err := fmt.Sscanf(msg[i+len("line "):], "%d", &n); err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

func stripYAMLPrefix(msg string) string {
	msg = strings.TrimPrefix(msg, "yaml: ")
	if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "line ") {
		return msg[i+2:]
	}
	return msg
}
