package sqlshape

import "testing"

func TestReadOps(t *testing.T) {
	type check func(o *Ops) bool
	tests := []struct {
		sql  string
		want map[string]check
	}{
		{"SELECT title FROM books ORDER BY pages DESC LIMIT 3", map[string]check{
			"desc": func(o *Ops) bool { return o.Desc && !o.LastAsc && o.Ordered && o.Limited }, "3": func(o *Ops) bool { return o.Numbers["3"] }}},
		{"SELECT title FROM books ORDER BY pages", map[string]check{"asc": func(o *Ops) bool { return o.LastAsc && !o.Desc }}},
		{"SELECT MAX(pages), AVG(price) FROM books", map[string]check{"aggs": func(o *Ops) bool { return o.Aggs["MAX"] && o.Aggs["AVG"] && !o.Aggs["MIN"] }}},
		{"SELECT COUNT(DISTINCT genre) FROM books", map[string]check{"dedup": func(o *Ops) bool { return o.Deduped && o.Aggs["COUNT"] }}},
		{"SELECT name FROM patrons WHERE id NOT IN (SELECT patron_id FROM loans)", map[string]check{"not in": func(o *Ops) bool { return o.Negated }}},
		{"SELECT name FROM patrons p LEFT JOIN loans l ON l.patron_id = p.id WHERE l.id IS NULL", map[string]check{"left join": func(o *Ops) bool { return o.Negated }}},
		{"SELECT name FROM patrons WHERE city != 'Oslo'", map[string]check{"ne": func(o *Ops) bool { return o.Negated && !o.Compared }}},
		{"SELECT name FROM patrons WHERE city = 'Oslo'", map[string]check{"plain": func(o *Ops) bool { return !o.Negated && !o.Compared && !o.Ordered }}},
		{"SELECT title FROM books WHERE pages > 300", map[string]check{"gt": func(o *Ops) bool { return o.Compared && o.Numbers["300"] }}},
		{"SELECT genre FROM books GROUP BY genre HAVING COUNT(*) >= 2", map[string]check{"having": func(o *Ops) bool { return o.Compared && o.Deduped }}},
		{"SELECT COUNT(*) FROM loans WHERE lent_on >= '2024-01-01' AND lent_on < '2025-01-01'", map[string]check{
			"year in a date": func(o *Ops) bool { return o.Numbers["2024"] && o.Compared }}},
		{"SELECT COUNT(*) FROM loans WHERE lent_on >= CURRENT_DATE - INTERVAL 7 DAY", map[string]check{"interval": func(o *Ops) bool { return o.Dated && o.Numbers["7"] }}},
		{"SELECT YEAR(lent_on), COUNT(*) FROM loans GROUP BY YEAR(lent_on)", map[string]check{"year()": func(o *Ops) bool { return o.Dated }}},
		{"SELECT fine FROM loans WHERE fine > 2.5", map[string]check{"decimal": func(o *Ops) bool { return o.Numbers["2.5"] }}},
		{"SELECT id FROM patrons EXCEPT SELECT patron_id FROM loans", map[string]check{"except": func(o *Ops) bool { return o.Negated }}},
	}
	for _, tt := range tests {
		o, err := ReadOps(tt.sql)
		if err != nil {
			t.Fatalf("%s: %v", tt.sql, err)
		}
		for name, ok := range tt.want {
			if !ok(o) {
				t.Errorf("%s: %s not read: %+v", tt.sql, name, o)
			}
		}
	}
}
