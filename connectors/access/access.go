// Package access holds a warehouse's access rules: who may ask it, which
// tables and columns are hidden (never linked, never in a prompt, never in
// a result) and which are sensitive (usable in filters, grouping, ordering
// and counts, but never shown as values). The rules are enforced on the
// parsed form of every statement before it runs (Policy.Check), whatever
// wrote it, and on the schema snapshot the engines see (Policy.Filter).
package access

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// Rules is the configuration of one warehouse's access.
//
// Channels and users are written as the dialog keys them:
// "platform:workspace:id", e.g. "slack:T0123:C0456" or
// "discord:GUILD:CHANNEL"; a channel entry of just "platform:workspace"
// allows every channel of that workspace. The console is "console:local:console".
// Roles are Discord role ids; every admin (Slack workspace admins and
// configured admins, Discord admins) also has the role "admin".
//
// Hidden and sensitive entries are "table" (hidden only) or
// "table.column".
type Rules struct {
	Channels  []string `yaml:"channels"`
	Users     []string `yaml:"users"`
	Roles     []string `yaml:"roles"`
	Hidden    []string `yaml:"hidden"`
	Sensitive []string `yaml:"sensitive"`
	// Levels give some people other rules, run on accounts of their own
	// (levels.go); these rules are the default level's.
	Levels []Level `yaml:"levels"`
}

// Empty reports whether the rules restrict nothing.
func (r Rules) Empty() bool {
	return len(r.Channels) == 0 && len(r.Users) == 0 && len(r.Roles) == 0 && len(r.Hidden) == 0 && len(r.Sensitive) == 0
}

// Validate checks the rules' form without a schema.
func (r Rules) Validate() error {
	var errs []error
	for _, c := range r.Channels {
		if n := strings.Count(c, ":"); n < 1 || n > 2 || strings.HasPrefix(c, ":") {
			errs = append(errs, fmt.Errorf("access.channels: %q is not platform:workspace:channel (e.g. slack:T0123:C0456)", c))
		}
	}
	for _, u := range r.Users {
		if strings.Count(u, ":") != 2 || strings.HasPrefix(u, ":") {
			errs = append(errs, fmt.Errorf("access.users: %q is not platform:workspace:user (e.g. slack:T0123:U0789)", u))
		}
	}
	for _, list := range []struct {
		key   string
		names []string
	}{{"hidden", r.Hidden}, {"sensitive", r.Sensitive}} {
		for _, n := range list.names {
			t, c, _ := strings.Cut(n, ".")
			switch {
			case t == "" || strings.Contains(c, "."):
				errs = append(errs, fmt.Errorf("access.%s: %q is not table or table.column", list.key, n))
			case list.key == "sensitive" && c == "":
				errs = append(errs, fmt.Errorf("access.sensitive: %q names a whole table; sensitive applies to columns (hide the table instead)", n))
			}
		}
	}
	if err := r.validateLevels(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Withholds reports whether the values of table.column must never be
// read for the bot's own use (profiles, samples, value indexes): it is in
// a hidden table, or hidden or sensitive itself. Names compare without
// case, as the rules are resolved.
func (r Rules) Withholds(table, column string) bool {
	for _, n := range r.Hidden {
		t, c, hasCol := strings.Cut(n, ".")
		if strings.EqualFold(t, table) && (!hasCol || strings.EqualFold(c, column)) {
			return true
		}
	}
	for _, n := range r.Sensitive {
		t, c, _ := strings.Cut(n, ".")
		if strings.EqualFold(t, table) && strings.EqualFold(c, column) {
			return true
		}
	}
	return false
}

// Asker is who asks, keyed as Rules are.
type Asker struct {
	Channel string // platform:workspace:channel
	User    string // platform:workspace:user
	Roles   []string
}

// Allows reports whether the asker may ask the warehouse: the channel must
// be listed (when channels are), and the user or one of their roles must be
// listed (when users or roles are).
func (r Rules) Allows(a Asker) bool {
	if len(r.Channels) > 0 && !slices.ContainsFunc(r.Channels, func(c string) bool {
		return c == a.Channel || strings.Count(c, ":") == 1 && strings.HasPrefix(a.Channel, c+":")
	}) {
		return false
	}
	if len(r.Users) == 0 && len(r.Roles) == 0 {
		return true
	}
	if slices.Contains(r.Users, a.User) {
		return true
	}
	return slices.ContainsFunc(a.Roles, func(role string) bool { return slices.Contains(r.Roles, role) })
}

// Policy is a warehouse's rules resolved against its schema.
type Policy struct {
	database     string
	databaseName string // as the schema spells it
	// tableCase is the server's lower_case_table_names: 0 compares table
	// names, aliases and databases byte for byte, 1 and 2 without case;
	// -1 when unknown (names differing in case may be either).
	tableCase    int
	hiddenTables map[string]bool            // lower-case table
	hidden       map[string]map[string]bool // table → column, lower case
	sensitive    map[string]map[string]bool
	// columns are each visible table's columns as the checker sees them:
	// folded names, hidden ones marked, sensitive ones carrying their bit.
	columns    map[string][]column
	tableNames map[string]string // lower → as the schema spells it
	// sensNames names the sensitive column of each bit of a colSet.
	sensNames []string
}

// New resolves the rules against the schema; a table or column the schema
// does not have is an error naming it.
func New(r Rules, schema *warehouse.Schema) (*Policy, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	p := &Policy{
		database:     strings.ToLower(schema.Database),
		databaseName: schema.Database,
		tableCase:    -1,
		hiddenTables: map[string]bool{},
		hidden:       map[string]map[string]bool{},
		sensitive:    map[string]map[string]bool{},
		columns:      map[string][]column{},
		tableNames:   map[string]string{},
	}
	for _, t := range schema.Tables {
		p.tableNames[strings.ToLower(t.Name)] = t.Name
	}
	var errs []error
	add := func(key, name string, into map[string]map[string]bool) {
		tn, cn, hasCol := strings.Cut(name, ".")
		t := schema.Table(tn)
		if t == nil {
			errs = append(errs, fmt.Errorf("access.%s: the warehouse has no table %q", key, tn))
			return
		}
		lt := strings.ToLower(t.Name)
		if !hasCol {
			p.hiddenTables[lt] = true
			return
		}
		c := t.Column(cn)
		if c == nil {
			errs = append(errs, fmt.Errorf("access.%s: table %s has no column %q", key, t.Name, cn))
			return
		}
		if into[lt] == nil {
			into[lt] = map[string]bool{}
		}
		into[lt][strings.ToLower(c.Name)] = true
	}
	for _, n := range r.Hidden {
		add("hidden", n, p.hidden)
	}
	for _, n := range r.Sensitive {
		add("sensitive", n, p.sensitive)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	p.resolveColumns(schema)
	return p, nil
}

// resolveColumns builds the checker's view of every table: hidden columns
// marked with their name, sensitive ones given their bit.
func (p *Policy) resolveColumns(schema *warehouse.Schema) {
	for _, t := range schema.Tables {
		lt := strings.ToLower(t.Name)
		cols := p.columns[lt]
		for _, c := range t.Columns {
			lc := strings.ToLower(c.Name)
			col := column{key: foldString(c.Name), name: asciiLower(c.Name), v: val{vars: true}}
			switch {
			case p.hiddenTables[lt] || p.hidden[lt][lc]:
				col.hidden = p.name(lt, c.Name)
			case p.sensitive[lt][lc]:
				bit := overflowBit
				if i := len(p.sensNames); i < 63 {
					bit = colSet(1) << i
				}
				p.sensNames = append(p.sensNames, p.name(lt, c.Name))
				col.v = val{sens: bit, raw: bit != overflowBit}
			}
			cols = append(cols, col)
		}
		p.columns[lt] = cols
	}
}

// sensName names one sensitive column of s, for refusals.
func (p *Policy) sensName(s colSet) string {
	for i, n := range p.sensNames {
		if i >= 63 {
			break
		}
		if s&(colSet(1)<<i) != 0 {
			return n
		}
	}
	if len(p.sensNames) > 63 {
		return "a column it keeps sensitive"
	}
	return "a column"
}

// isHiddenKey reports whether the column of folded name key in table lt is hidden.
func (p *Policy) isHiddenKey(lt, key string) bool {
	if p.hiddenTables[lt] {
		return true
	}
	for _, c := range p.columns[lt] {
		if c.key == key && c.hidden != "" {
			return true
		}
	}
	return false
}

// hiddenColumnsOf names table lt's hidden columns.
func (p *Policy) hiddenColumnsOf(lt string) []string {
	var out []string
	for _, c := range p.columns[lt] {
		if c.hidden != "" {
			out = append(out, c.hidden)
		}
	}
	return out
}

// Restricts reports whether anything is hidden or sensitive.
func (p *Policy) Restricts() bool {
	return len(p.hiddenTables)+len(p.hidden)+len(p.sensitive) > 0
}

func (p *Policy) isHidden(table, column string) bool {
	return p.hiddenTables[table] || p.hidden[table][column]
}

func (p *Policy) isSensitive(table, column string) bool { return p.sensitive[table][column] }

// name spells table.column as the schema does.
func (p *Policy) name(table, column string) string {
	if t, ok := p.tableNames[table]; ok {
		table = t
	}
	return table + "." + column
}

// Filter returns a copy of the snapshot without hidden tables and columns
// (and the joins, profiles and value aliases that mention them), and with
// no stored values, samples or ranges of sensitive columns: what the
// catalog, the engines' prompts and clarification examples are built from.
func (p *Policy) Filter(snap *warehouse.Snapshot) *warehouse.Snapshot {
	out := *snap
	out.Schema.Tables = nil
	for _, t := range snap.Schema.Tables {
		lt := strings.ToLower(t.Name)
		if p.hiddenTables[lt] {
			continue
		}
		nt := t
		nt.Columns = nil
		for _, c := range t.Columns {
			if !p.hidden[lt][strings.ToLower(c.Name)] {
				nt.Columns = append(nt.Columns, c)
			}
		}
		nt.PrimaryKey = slices.DeleteFunc(slices.Clone(t.PrimaryKey), func(c string) bool { return p.hidden[lt][strings.ToLower(c)] })
		out.Schema.Tables = append(out.Schema.Tables, nt)
	}
	hid := func(t, c string) bool { return p.isHidden(strings.ToLower(t), strings.ToLower(c)) }
	out.Schema.Joins = slices.DeleteFunc(slices.Clone(snap.Schema.Joins), func(j warehouse.Join) bool {
		return hid(j.FromTable, j.FromColumn) || hid(j.ToTable, j.ToColumn) || j.When != nil && hid(j.FromTable, j.When.Column)
	})
	out.Profiles = nil
	for _, pr := range snap.Profiles {
		lt, lc := strings.ToLower(pr.Table), strings.ToLower(pr.Column)
		if p.isHidden(lt, lc) {
			continue
		}
		if p.isSensitive(lt, lc) {
			pr.Min, pr.Max, pr.Top, pr.Samples, pr.Values, pr.ValuesComplete = "", "", nil, nil, nil, false
		}
		out.Profiles = append(out.Profiles, pr)
	}
	out.Aliases = slices.DeleteFunc(slices.Clone(snap.Aliases), func(a warehouse.ValueAlias) bool {
		lt := strings.ToLower(a.Table)
		for _, c := range []string{a.CodeColumn, a.NameColumn} {
			lc := strings.ToLower(c)
			if p.isHidden(lt, lc) || p.isSensitive(lt, lc) {
				return true
			}
		}
		return false
	})
	return &out
}
