package warehouse

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// introspectionLimits lets catalog queries return wide schemas in full.
var introspectionLimits = Limits{MaxRows: 1_000_000, Timeout: 60 * time.Second}

// quoteString makes a SQL string literal. Only the configured database name
// and identifiers read back from information_schema go through it.
func quoteString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// QuoteIdent quotes an identifier with backticks.
func QuoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// Introspect reads tables, columns, keys and declared foreign keys from
// information_schema and adds inferred joins by naming convention.
func (w *DB) Introspect(ctx context.Context) (*Schema, error) {
	db := quoteString(w.database)
	s := &Schema{Database: w.database, Flavor: w.flavor}

	res, err := w.Query(ctx, `SELECT TABLE_NAME, TABLE_TYPE, TABLE_COMMENT, TABLE_ROWS
FROM information_schema.TABLES WHERE TABLE_SCHEMA = `+db+` ORDER BY TABLE_NAME`, introspectionLimits)
	if err != nil {
		return nil, fmt.Errorf("list tables of %s: %w", w.database, err)
	}
	index := map[string]int{}
	for _, r := range res.Rows {
		t := Table{Name: str(r[0]), View: strings.Contains(strings.ToUpper(str(r[1])), "VIEW"), Comment: cleanComment(str(r[2]))}
		if n, ok := AsFloat(r[3]); ok {
			t.RowCount = int64(n)
		}
		index[strings.ToLower(t.Name)] = len(s.Tables)
		s.Tables = append(s.Tables, t)
	}

	res, err = w.Query(ctx, `SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, COLUMN_COMMENT, ORDINAL_POSITION
FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = `+db+` ORDER BY TABLE_NAME, ORDINAL_POSITION`, introspectionLimits)
	if err != nil {
		return nil, fmt.Errorf("list columns of %s: %w", w.database, err)
	}
	for _, r := range res.Rows {
		ti, ok := index[strings.ToLower(str(r[0]))]
		if !ok {
			continue
		}
		pos, _ := AsFloat(r[6])
		s.Tables[ti].Columns = append(s.Tables[ti].Columns, Column{
			Table: s.Tables[ti].Name, Name: str(r[1]),
			DataType: strings.ToLower(str(r[2])), FullType: strings.ToLower(str(r[3])),
			Nullable: strings.EqualFold(str(r[4]), "YES"), Comment: cleanComment(str(r[5])), Position: int(pos),
		})
	}
	for i := range s.Tables {
		sort.SliceStable(s.Tables[i].Columns, func(a, b int) bool {
			return s.Tables[i].Columns[a].Position < s.Tables[i].Columns[b].Position
		})
	}

	res, err = w.Query(ctx, `SELECT CONSTRAINT_NAME, TABLE_NAME, COLUMN_NAME, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME, ORDINAL_POSITION
FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = `+db+` ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`, introspectionLimits)
	if err != nil {
		return nil, fmt.Errorf("list keys of %s: %w", w.database, err)
	}
	for _, r := range res.Rows {
		ti, ok := index[strings.ToLower(str(r[1]))]
		if !ok {
			continue
		}
		name, col, refTable, refCol := str(r[0]), str(r[2]), str(r[3]), str(r[4])
		switch {
		case strings.EqualFold(name, "PRIMARY"):
			s.Tables[ti].PrimaryKey = append(s.Tables[ti].PrimaryKey, col)
		case refTable != "":
			if _, ok := index[strings.ToLower(refTable)]; !ok {
				continue // a key into another database
			}
			s.Joins = append(s.Joins, Join{FromTable: s.Tables[ti].Name, FromColumn: col,
				ToTable: s.Tables[index[strings.ToLower(refTable)]].Name, ToColumn: refCol,
				Declared: true, Confidence: 1, Reason: "foreign key " + name})
		}
	}
	s.Joins = append(s.Joins, InferJoins(s)...)
	s.Joins = append(s.Joins, InferTypedJoins(s)...)
	return s, nil
}

func str(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// cleanComment drops the engine's placeholder comments.
func cleanComment(c string) string {
	c = strings.TrimSpace(c)
	if strings.EqualFold(c, "VIEW") {
		return ""
	}
	return c
}

// InferJoins proposes joins that no foreign key declares, as warehouses
// rarely declare them: a column named after another table plus "_id"/"id"
// (orders.customer_id → customers.id), or a column with the same name as
// another table's single-column primary key. Each carries a confidence below
// 1 and the reason, and columns already covered by a declared key are skipped.
func InferJoins(s *Schema) []Join {
	declared := map[string]bool{}
	for _, j := range s.Joins {
		if j.Declared {
			declared[strings.ToLower(j.FromTable+"."+j.FromColumn)] = true
		}
	}
	byName := tablesByNameForm(s)
	var out []Join
	seen := map[string]bool{}
	add := func(j Join) {
		k := strings.ToLower(j.FromTable + "." + j.FromColumn + ">" + j.ToTable + "." + j.ToColumn)
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, j)
	}
	for ti := range s.Tables {
		t := &s.Tables[ti]
		for _, c := range t.Columns {
			if declared[strings.ToLower(t.Name+"."+c.Name)] {
				continue
			}
			isOwnPK := len(t.PrimaryKey) == 1 && strings.EqualFold(t.PrimaryKey[0], c.Name)
			lc := strings.ToLower(c.Name)
			// Convention: <table>_id / <table>id / <table>Id.
			if stem, ok := strings.CutSuffix(lc, "id"); ok && stem != "" && !isOwnPK {
				stem = strings.TrimSuffix(stem, "_")
				if target, ok := byName[stem]; ok && target != t {
					if key := singleKey(target); key != nil && compatible(c, *key) {
						add(Join{FromTable: t.Name, FromColumn: c.Name, ToTable: target.Name, ToColumn: key.Name,
							Confidence: 0.9, Reason: fmt.Sprintf("%s.%s is named after table %s", t.Name, c.Name, target.Name)})
						continue
					}
				}
			}
			// Same name as another table's single-column key (not a bare "id").
			if lc == "id" || isOwnPK {
				continue
			}
			for ui := range s.Tables {
				u := &s.Tables[ui]
				if u == t {
					continue
				}
				key := singleKey(u)
				if key == nil || !strings.EqualFold(key.Name, c.Name) {
					continue
				}
				switch {
				case compatible(c, *key):
					add(Join{FromTable: t.Name, FromColumn: c.Name, ToTable: u.Name, ToColumn: key.Name,
						Confidence: 0.8, Reason: fmt.Sprintf("%s.%s has the name of the key of %s", t.Name, c.Name, u.Name)})
				case numberAsText(c, *key):
					// A numeric key copied into a text column under its own
					// name (employee_id VARCHAR): the same ids, compared as
					// numbers by the server; less sure than a typed match.
					add(Join{FromTable: t.Name, FromColumn: c.Name, ToTable: u.Name, ToColumn: key.Name,
						Confidence: 0.6, Reason: fmt.Sprintf("%s.%s has the name of the key of %s, stored as text", t.Name, c.Name, u.Name)})
				}
			}
		}
	}
	return out
}

// nameForms are the lower-case words a column prefix may use for a table:
// the name itself and its singular forms (customers → customer,
// categories → category, addresses → address).
func nameForms(table string) []string {
	n := strings.ToLower(table)
	forms := []string{n}
	switch {
	case strings.HasSuffix(n, "ies"):
		forms = append(forms, strings.TrimSuffix(n, "ies")+"y")
	case strings.HasSuffix(n, "sses"), strings.HasSuffix(n, "xes"), strings.HasSuffix(n, "ches"), strings.HasSuffix(n, "shes"):
		forms = append(forms, strings.TrimSuffix(n, "es"))
	case strings.HasSuffix(n, "s") && !strings.HasSuffix(n, "ss"):
		forms = append(forms, strings.TrimSuffix(n, "s"))
	}
	// dim_customer / fact_orders style prefixes.
	for _, p := range []string{"dim_", "fact_", "tbl_", "t_"} {
		if rest, ok := strings.CutPrefix(n, p); ok && rest != "" {
			forms = append(forms, nameForms(rest)...)
		}
	}
	return forms
}

// singleKey is the table's single-column primary key, or its "id" column.
func singleKey(t *Table) *Column {
	if len(t.PrimaryKey) == 1 {
		return t.Column(t.PrimaryKey[0])
	}
	if len(t.PrimaryKey) == 0 {
		return t.Column("id")
	}
	return nil
}

// compatible says whether two columns can be joined without conversion
// surprises: both numbers, or both text.
func compatible(a, b Column) bool {
	ka, kb := a.Kind(), b.Kind()
	return ka == kb && (ka == KindNumber || ka == KindText)
}

// numberAsText says whether a text column may hold the values of a
// numeric key: one is text, the other a number.
func numberAsText(a, b Column) bool {
	ka, kb := a.Kind(), b.Kind()
	return ka == KindText && kb == KindNumber || ka == KindNumber && kb == KindText
}

// tablesByNameForm indexes tables by every form of their name (plural,
// singular), the first table taking a form it shares with another.
func tablesByNameForm(s *Schema) map[string]*Table {
	byName := map[string]*Table{}
	for i := range s.Tables {
		t := &s.Tables[i]
		for _, n := range nameForms(t.Name) {
			if _, dup := byName[n]; !dup {
				byName[n] = t
			}
		}
	}
	return byName
}
