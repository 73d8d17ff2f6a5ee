package warehouse

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ProfileOptions bound the work of profiling.
type ProfileOptions struct {
	// SampleRows caps the rows examined per table for statistics.
	SampleRows int
	// TableBudget caps the time spent on one table.
	TableBudget time.Duration
	// LowCardinality is the distinct count up to which a text column gets
	// its most frequent values listed.
	LowCardinality int
	// ValueCap caps the distinct values per text column kept for the value index.
	ValueCap int
	// Parallel is how many tables are profiled at once (default 3).
	Parallel int
	// Withhold names the columns whose values must never be read or kept
	// (the access rules' hidden and sensitive ones): they get counts only,
	// no range, frequent values, samples or value index; a cached
	// snapshot is cleaned of them before use.
	Withhold func(table, column string) bool
}

func (o ProfileOptions) withholds(table, column string) bool {
	return o.Withhold != nil && o.Withhold(table, column)
}

func (o ProfileOptions) withDefaults() ProfileOptions {
	if o.SampleRows <= 0 {
		o.SampleRows = 100_000
	}
	if o.TableBudget <= 0 {
		o.TableBudget = 10 * time.Second
	}
	if o.LowCardinality <= 0 {
		o.LowCardinality = 50
	}
	if o.ValueCap <= 0 {
		o.ValueCap = 20_000
	}
	if o.Parallel <= 0 {
		o.Parallel = 3
	}
	return o
}

// SnapshotVersion is bumped whenever the Snapshot encoding (or what it
// infers) changes, so that cached snapshots are taken again.
const SnapshotVersion = 3

// TakeSnapshot introspects the schema and profiles every column, then adds
// what only the data shows: code/name aliases and value-contained joins.
// A table whose profile ran out of time is marked Partial (see
// PartialTables), never passed off as complete.
func (w *DB) TakeSnapshot(ctx context.Context, opts ProfileOptions) (*Snapshot, error) {
	return w.profile(ctx, nil, opts)
}

// RetakePartial profiles again the tables of old whose profile is
// partial, keeps the other tables' profiles, and infers aliases and joins
// anew; the schema is read again, so new tables are profiled too. It is
// the background retry of a snapshot taken under load.
func (w *DB) RetakePartial(ctx context.Context, old *Snapshot, opts ProfileOptions) (*Snapshot, error) {
	return w.profile(ctx, old, opts)
}

// profile takes a snapshot; with old, only the tables old has no complete
// profile of are profiled.
func (w *DB) profile(ctx context.Context, old *Snapshot, opts ProfileOptions) (*Snapshot, error) {
	start := time.Now()
	schema, err := w.Introspect(ctx)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{Schema: *schema, Version: SnapshotVersion}
	keep := map[string][]Profile{}
	if old != nil {
		partial := map[string]bool{}
		for _, t := range old.PartialTables() {
			partial[strings.ToLower(t)] = true
		}
		for _, p := range old.Profiles {
			if !partial[strings.ToLower(p.Table)] {
				keep[strings.ToLower(p.Table)] = append(keep[strings.ToLower(p.Table)], p)
			}
		}
	}
	// Tables are profiled a few at a time: on a warehouse each is a handful
	// of scans the server runs in parallel; results keep the tables' order.
	opts = opts.withDefaults()
	perTable := make([][]Profile, len(schema.Tables))
	sem := make(chan struct{}, opts.Parallel)
	var wg sync.WaitGroup
	profiled := 0
	for i := range schema.Tables {
		t := &schema.Tables[i]
		if ps, ok := keep[strings.ToLower(t.Name)]; ok && len(ps) == len(t.Columns) {
			perTable[i] = ps
			continue
		}
		profiled++
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			perTable[i] = w.ProfileTable(ctx, &schema.Tables[i], opts)
		}(i)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("profile %s: %w", w.database, err)
	}
	for _, ps := range perTable {
		snap.Profiles = append(snap.Profiles, ps...)
	}
	snap.Aliases = findAliases(ctx, w, snap)
	snap.Schema.Joins = append(snap.Schema.Joins, inferValueJoins(snap)...)
	snap.Schema.Joins = append(snap.Schema.Joins, inferProfiledKeyJoins(snap)...)
	snap.Schema.Joins = append(snap.Schema.Joins, inferTableNamedJoins(snap)...)
	snap.TakenAt = time.Now().UTC()
	partial := snap.PartialTables()
	log := w.logger.Info
	if len(partial) > 0 {
		log = w.logger.Warn
	}
	log("warehouse profiled", "database", w.database, "tables", len(schema.Tables), "profiled", profiled,
		"columns", len(snap.Profiles), "aliases", len(snap.Aliases), "partial_tables", strings.Join(partial, ","), "took", time.Since(start).Round(time.Millisecond))
	return snap, nil
}

// PartialTables lists the tables whose profile is incomplete (the time
// budget ran out, or a statistics query failed), in schema order: their
// example values and value matches are missing until they are profiled
// again.
func (s *Snapshot) PartialTables() []string {
	partial := map[string]bool{}
	for _, p := range s.Profiles {
		if p.Partial {
			partial[strings.ToLower(p.Table)] = true
		}
	}
	var out []string
	for _, t := range s.Schema.Tables {
		if partial[strings.ToLower(t.Name)] {
			out = append(out, t.Name)
		}
	}
	return out
}

// ProfileTable profiles the columns of one table within opts.TableBudget.
// Statistics come from at most SampleRows rows; when the budget runs out
// the remaining profiles are marked Partial instead of failing.
func (w *DB) ProfileTable(ctx context.Context, t *Table, opts ProfileOptions) []Profile {
	opts = opts.withDefaults()
	tctx, cancel := context.WithTimeout(ctx, opts.TableBudget)
	defer cancel()
	profiles := make([]Profile, len(t.Columns))
	for i, c := range t.Columns {
		profiles[i] = Profile{Table: t.Name, Column: c.Name, Partial: true}
	}
	if len(t.Columns) == 0 {
		return profiles
	}
	src := fmt.Sprintf("(SELECT * FROM %s%s LIMIT %d) AS clarify_sample", QuoteIdent(t.Name), w.stableOrder(t.PrimaryKey...), opts.SampleRows)
	lim := func(maxRows int) Limits {
		d := time.Until(deadlineOf(tctx))
		if d < 100*time.Millisecond {
			d = 100 * time.Millisecond
		}
		return Limits{MaxRows: maxRows, Timeout: d}
	}

	// One pass for counts, NULLs and ranges of every column.
	var sel []string
	sel = append(sel, "COUNT(*)")
	for _, c := range t.Columns {
		q := QuoteIdent(c.Name)
		sel = append(sel, "COUNT(DISTINCT "+q+")", "SUM(CASE WHEN "+q+" IS NULL THEN 1 ELSE 0 END)")
		if k := c.Kind(); (k == KindNumber || k == KindTime) && !opts.withholds(t.Name, c.Name) {
			sel = append(sel, "MIN("+q+")", "MAX("+q+")")
		}
	}
	res, err := w.Query(tctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+src, lim(1))
	if err != nil || len(res.Rows) != 1 {
		w.logger.Warn("profile: statistics failed", "table", t.Name, "err", err)
		return profiles
	}
	row := res.Rows[0]
	n, _ := AsFloat(row[0])
	sampled := t.RowCount > int64(opts.SampleRows) || int64(n) >= int64(opts.SampleRows)
	at := 1
	for i, c := range t.Columns {
		p := &profiles[i]
		p.Rows, p.Sampled, p.Partial = int64(n), sampled, false
		d, _ := AsFloat(row[at])
		nulls, _ := AsFloat(row[at+1])
		at += 2
		p.Distinct = int64(d)
		if n > 0 {
			p.NullShare = nulls / n
		}
		if k := c.Kind(); (k == KindNumber || k == KindTime) && !opts.withholds(t.Name, c.Name) {
			p.Min, p.Max = str(row[at]), str(row[at+1])
			at += 2
		}
	}

	// Values: frequent ones for low-cardinality text, samples for the rest,
	// and the distinct text values (capped) for the value index.
	for i, c := range t.Columns {
		p := &profiles[i]
		if opts.withholds(t.Name, c.Name) {
			continue
		}
		if tctx.Err() != nil {
			p.Partial = true
			continue
		}
		q := QuoteIdent(c.Name)
		if c.Kind() == KindText && p.Distinct > 0 && p.Distinct <= int64(opts.LowCardinality) {
			r, err := w.Query(tctx, fmt.Sprintf("SELECT %s, COUNT(*) AS n FROM %s WHERE %s IS NOT NULL GROUP BY %s ORDER BY n DESC, %s LIMIT %d",
				q, src, q, q, q, opts.LowCardinality), lim(opts.LowCardinality))
			if err != nil {
				p.Partial = true
				continue
			}
			for _, vr := range r.Rows {
				cnt, _ := AsFloat(vr[1])
				p.Top = append(p.Top, ValueCount{Value: str(vr[0]), Count: int64(cnt)})
			}
		} else {
			r, err := w.Query(tctx, fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE %s IS NOT NULL%s LIMIT 5", q, src, q, w.stableOrder(c.Name)), lim(5))
			if err != nil {
				p.Partial = true
				continue
			}
			for _, vr := range r.Rows {
				p.Samples = append(p.Samples, truncateValue(str(vr[0]), 80))
			}
		}
		if c.Kind() == KindText && indexable(c) {
			r, err := w.Query(tctx, fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE %s IS NOT NULL AND CHAR_LENGTH(%s) <= 100%s LIMIT %d",
				q, QuoteIdent(t.Name), q, q, w.stableOrder(c.Name), opts.ValueCap), lim(opts.ValueCap))
			if err != nil {
				p.Partial = true
				continue
			}
			p.Values = make([]string, 0, len(r.Rows))
			for _, vr := range r.Rows {
				p.Values = append(p.Values, str(vr[0]))
			}
			p.ValuesComplete = !r.Truncated
			sort.Strings(p.Values)
		}
	}
	return profiles
}

func deadlineOf(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(time.Hour)
}

// indexable: short text worth matching against words in a question; long
// free text (descriptions, JSON) is not.
func indexable(c Column) bool {
	switch c.DataType {
	case "char", "varchar", "enum", "set", "text", "tinytext":
		return true
	}
	return false
}

func truncateValue(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// findAliases looks, in small tables, for a short-code column and a name
// column that are both unique and so pair one to one (states.code 'TX',
// states.name 'Texas'); their rows become aliases.
func findAliases(ctx context.Context, w *DB, snap *Snapshot) []ValueAlias {
	var out []ValueAlias
	for ti := range snap.Schema.Tables {
		t := &snap.Schema.Tables[ti]
		if t.View || t.RowCount > 5000 {
			continue
		}
		var codes, names []Column
		for _, c := range t.Columns {
			p := snap.Profile(t.Name, c.Name)
			if c.Kind() != KindText || p == nil || p.Partial || p.Rows == 0 || p.Distinct != p.Rows || p.NullShare > 0 {
				continue
			}
			vals := append(append([]string{}, p.Values...), topValues(p)...)
			if len(vals) == 0 {
				continue
			}
			if maxLen(vals) <= 3 {
				codes = append(codes, c)
			} else if minLen(vals) >= 3 {
				names = append(names, c)
			}
		}
		for _, code := range codes {
			for _, name := range names {
				res, err := w.Query(ctx, fmt.Sprintf("SELECT %s, %s FROM %s", QuoteIdent(code.Name), QuoteIdent(name.Name), QuoteIdent(t.Name)),
					Limits{MaxRows: 5000, Timeout: 5 * time.Second})
				if err != nil || res.Truncated {
					continue
				}
				for _, r := range res.Rows {
					if r[0] == nil || r[1] == nil {
						continue
					}
					out = append(out, ValueAlias{Table: t.Name, CodeColumn: code.Name, NameColumn: name.Name, Code: str(r[0]), Name: str(r[1])})
				}
			}
		}
	}
	return out
}

func topValues(p *Profile) []string {
	out := make([]string, len(p.Top))
	for i, v := range p.Top {
		out[i] = v.Value
	}
	return out
}

func maxLen(v []string) int {
	m := 0
	for _, s := range v {
		m = max(m, len([]rune(s)))
	}
	return m
}

func minLen(v []string) int {
	m := -1
	for _, s := range v {
		if l := len([]rune(s)); m < 0 || l < m {
			m = l
		}
	}
	return m
}

// inferValueJoins adds joins the names do not show but the values do: a
// text column whose every distinct value is a value of another table's
// unique text column (orders.ship_state ⊆ states.code). Only complete value
// lists count, so a capped list never suggests a join.
func inferValueJoins(snap *Snapshot) []Join {
	have := map[string]bool{}
	for _, j := range snap.Schema.Joins {
		have[strings.ToLower(j.FromTable+"."+j.FromColumn)] = true
	}
	type keyCol struct {
		table, column string
		values        map[string]bool
	}
	var keys []keyCol
	for ti := range snap.Schema.Tables {
		t := &snap.Schema.Tables[ti]
		for _, c := range t.Columns {
			p := snap.Profile(t.Name, c.Name)
			if p == nil || p.Partial || p.Sampled || !p.ValuesComplete || c.Kind() != KindText || p.Rows == 0 || p.Distinct != p.Rows {
				continue
			}
			m := make(map[string]bool, len(p.Values))
			for _, v := range p.Values {
				m[strings.ToLower(v)] = true
			}
			keys = append(keys, keyCol{t.Name, c.Name, m})
		}
	}
	var out []Join
	for ti := range snap.Schema.Tables {
		t := &snap.Schema.Tables[ti]
		for _, c := range t.Columns {
			if have[strings.ToLower(t.Name+"."+c.Name)] || c.Kind() != KindText {
				continue
			}
			p := snap.Profile(t.Name, c.Name)
			if p == nil || !p.ValuesComplete || len(p.Values) < 2 {
				continue
			}
			for _, k := range keys {
				if strings.EqualFold(k.table, t.Name) {
					continue
				}
				all := true
				for _, v := range p.Values {
					if !k.values[strings.ToLower(v)] {
						all = false
						break
					}
				}
				if all {
					out = append(out, Join{FromTable: t.Name, FromColumn: c.Name, ToTable: k.table, ToColumn: k.column,
						Confidence: 0.7, Reason: fmt.Sprintf("every value of %s.%s is a %s.%s", t.Name, c.Name, k.table, k.column)})
				}
			}
		}
	}
	return out
}

// inferProfiledKeyJoins adds the joins of warehouses that declare no keys
// and name their keys freely ("aid", "pid"): a column whose values the
// profile shows unique and never NULL is a key, and a column of the same
// name in another table points at it. When both sides are unique the
// table the key is named after (aid → author) or else the smaller table is
// the one pointed at.
func inferProfiledKeyJoins(snap *Snapshot) []Join {
	have := map[string]bool{}
	for _, j := range snap.Schema.Joins {
		have[strings.ToLower(j.FromTable+"."+j.FromColumn)] = true
		have[strings.ToLower(j.ToTable+"."+j.ToColumn)+"<"+strings.ToLower(j.FromTable)] = true
	}
	unique := func(t *Table, c Column) bool {
		p := snap.Profile(t.Name, c.Name)
		return p != nil && !p.Partial && !p.Sampled && p.Rows > 1 && p.Distinct == p.Rows && p.NullShare == 0
	}
	namedAfter := func(t *Table, col string) bool {
		lc, lt := strings.ToLower(col), strings.ToLower(t.Name)
		return lc != "id" && lt != "" && lc[0] == lt[0] && (strings.HasSuffix(lc, "id") || strings.HasSuffix(lc, "_key") || strings.HasSuffix(lc, "code"))
	}
	var out []Join
	for ti := range snap.Schema.Tables {
		t := &snap.Schema.Tables[ti]
		for _, c := range t.Columns {
			if have[strings.ToLower(t.Name+"."+c.Name)] || strings.EqualFold(c.Name, "id") {
				continue
			}
			if !keyLike(c) {
				continue
			}
			var best *Table
			for ui := range snap.Schema.Tables {
				u := &snap.Schema.Tables[ui]
				key := u.Column(c.Name)
				if u == t || key == nil || !compatible(c, *key) || !unique(u, *key) {
					continue
				}
				if unique(t, c) {
					// Both sides unique: point at the table the key is named
					// after (item_id → item, not item_stats),
					// else at the smaller one.
					switch {
					case exactlyNamedAfter(t, c.Name):
						continue
					case exactlyNamedAfter(u, c.Name):
					case namedAfter(t, c.Name) || !namedAfter(u, c.Name) && u.RowCount > t.RowCount:
						continue
					}
				}
				if have[strings.ToLower(u.Name+"."+key.Name)+"<"+strings.ToLower(t.Name)] {
					continue
				}
				if best == nil || namedAfter(u, c.Name) && !namedAfter(best, c.Name) {
					best = u
				}
			}
			if best != nil {
				out = append(out, Join{FromTable: t.Name, FromColumn: c.Name, ToTable: best.Name, ToColumn: best.Column(c.Name).Name,
					Confidence: 0.75, Reason: fmt.Sprintf("%s.%s has the name of %s.%s, whose values are unique", t.Name, c.Name, best.Name, c.Name)})
			}
		}
	}
	return out
}

// exactlyNamedAfter says whether a key column is the table's name with
// "_id" or "id" (course_id of course, customerid of customers).
func exactlyNamedAfter(t *Table, col string) bool {
	stem, ok := strings.CutSuffix(strings.ToLower(col), "id")
	if !ok {
		return false
	}
	stem = strings.TrimSuffix(stem, "_")
	for _, n := range nameForms(t.Name) {
		if n == stem {
			return true
		}
	}
	return false
}

// inferTableNamedJoins adds the joins of a number column named after
// another table, without "_id" (course_offering.semester →
// semester.semester_id): it points at that table's key (declared, or a
// unique "id"/"<table>_id" column) when its values lie within the key's.
func inferTableNamedJoins(snap *Snapshot) []Join {
	have := map[string]bool{}
	for _, j := range snap.Schema.Joins {
		have[strings.ToLower(j.FromTable+"."+j.FromColumn)] = true
	}
	byName := map[string]*Table{}
	for i := range snap.Schema.Tables {
		t := &snap.Schema.Tables[i]
		for _, n := range nameForms(t.Name) {
			if _, dup := byName[n]; !dup {
				byName[n] = t
			}
		}
	}
	// "maker" for car_makers: the last word of a longer name, when no
	// table has it already and only one table ends in it.
	last := map[string][]*Table{}
	for i := range snap.Schema.Tables {
		t := &snap.Schema.Tables[i]
		if k := strings.LastIndexByte(t.Name, '_'); k > 0 {
			for _, n := range nameForms(t.Name[k+1:]) {
				last[n] = append(last[n], t)
			}
		}
	}
	for n, ts := range last {
		if _, taken := byName[n]; !taken && len(ts) == 1 {
			byName[n] = ts[0]
		}
	}
	uniqueKey := func(u *Table) *Column {
		if k := singleKey(u); k != nil {
			return k
		}
		for _, n := range nameForms(u.Name) {
			if k := u.Column(n + "_id"); k != nil {
				p := snap.Profile(u.Name, k.Name)
				if p != nil && !p.Partial && !p.Sampled && p.Rows > 1 && p.Distinct == p.Rows && p.NullShare == 0 {
					return k
				}
			}
		}
		return nil
	}
	var out []Join
	for ti := range snap.Schema.Tables {
		t := &snap.Schema.Tables[ti]
		for _, c := range t.Columns {
			u := byName[strings.ToLower(c.Name)]
			if u == nil || u == t || have[strings.ToLower(t.Name+"."+c.Name)] {
				continue
			}
			key := uniqueKey(u)
			if key == nil || key.Kind() != KindNumber {
				continue
			}
			pc, pk := snap.Profile(t.Name, c.Name), snap.Profile(u.Name, key.Name)
			// A few orphans (ids whose rows were deleted) are common in
			// real data; more distinct values than keys and a margin is not
			// a reference.
			if pc == nil || pk == nil || pc.Distinct == 0 || pc.Distinct > pk.Distinct+max(1, pk.Distinct/20) {
				continue
			}
			confidence, as := 0.7, ""
			switch c.Kind() {
			case KindNumber:
				if !within(pc, pk) {
					continue
				}
			case KindText:
				// Ids kept as text ("3", "12"): every stored value a whole
				// number within the key's range.
				if !wholeNumbersWithin(pc, pk) {
					continue
				}
				confidence, as = 0.6, ", stored as text"
			default:
				continue
			}
			out = append(out, Join{FromTable: t.Name, FromColumn: c.Name, ToTable: u.Name, ToColumn: key.Name,
				Confidence: confidence, Reason: fmt.Sprintf("%s.%s is named after table %s and its values lie within %s.%s%s", t.Name, c.Name, u.Name, u.Name, key.Name, as)})
		}
	}
	return out
}

// within says whether a number column's range lies within another's.
func within(p, q *Profile) bool {
	pmin, err1 := strconv.ParseFloat(p.Min, 64)
	pmax, err2 := strconv.ParseFloat(p.Max, 64)
	qmin, err3 := strconv.ParseFloat(q.Min, 64)
	qmax, err4 := strconv.ParseFloat(q.Max, 64)
	return err1 == nil && err2 == nil && err3 == nil && err4 == nil && pmin >= qmin && pmax <= qmax
}

// wholeNumbersWithin says whether every value of a text column (all of
// them profiled) is a whole number within a number column's range.
func wholeNumbersWithin(p, q *Profile) bool {
	qmin, err1 := strconv.ParseFloat(q.Min, 64)
	qmax, err2 := strconv.ParseFloat(q.Max, 64)
	if err1 != nil || err2 != nil || !p.ValuesComplete || len(p.Values) == 0 {
		return false
	}
	for _, v := range p.Values {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || float64(n) < qmin || float64(n) > qmax {
			return false
		}
	}
	return true
}

// keyLike says whether a column may hold keys: named like one ("aid",
// "sku_code", "order_no"); unique names, titles and measures (a small
// table's populations) are not.
func keyLike(c Column) bool {
	lc := strings.ToLower(c.Name)
	named := strings.HasSuffix(lc, "id") || strings.HasSuffix(lc, "key") || strings.HasSuffix(lc, "code") || strings.HasSuffix(lc, "no") || strings.HasSuffix(lc, "num")
	k := c.Kind()
	return named && (k == KindNumber || k == KindText)
}

// withhold drops the values opts.Withhold names from snap's profiles and
// aliases, and reports whether there were any.
func withhold(snap *Snapshot, opts ProfileOptions) bool {
	if opts.Withhold == nil {
		return false
	}
	changed := false
	for i := range snap.Profiles {
		p := &snap.Profiles[i]
		if !opts.Withhold(p.Table, p.Column) {
			continue
		}
		if p.Min != "" || p.Max != "" || len(p.Top) > 0 || len(p.Samples) > 0 || len(p.Values) > 0 {
			changed = true
		}
		p.Min, p.Max, p.Top, p.Samples, p.Values, p.ValuesComplete = "", "", nil, nil, nil, false
	}
	kept := snap.Aliases[:0]
	for _, a := range snap.Aliases {
		if opts.Withhold(a.Table, a.CodeColumn) || opts.Withhold(a.Table, a.NameColumn) {
			changed = true
			continue
		}
		kept = append(kept, a)
	}
	snap.Aliases = kept
	return changed
}

// SaveSnapshot writes the snapshot as gzipped JSON, atomically.
func SaveSnapshot(path string, snap *Snapshot) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".snapshot-*")
	if err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	defer os.Remove(tmp.Name())
	zw := gzip.NewWriter(tmp)
	if err := json.NewEncoder(zw).Encode(snap); err != nil {
		tmp.Close()
		return fmt.Errorf("save snapshot: encode: %w", err)
	}
	if err := zw.Close(); err != nil {
		tmp.Close()
		return fmt.Errorf("save snapshot: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save snapshot: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	return nil
}

// ErrStaleSnapshot means a cached snapshot was written by another version.
var ErrStaleSnapshot = errors.New("snapshot format is out of date")

// LoadSnapshot reads a snapshot written by SaveSnapshot.
func LoadSnapshot(path string) (*Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load snapshot: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("load snapshot %s: %w", path, err)
	}
	var snap Snapshot
	if err := json.NewDecoder(zr).Decode(&snap); err != nil {
		return nil, fmt.Errorf("load snapshot %s: %w", path, err)
	}
	if snap.Version != SnapshotVersion {
		return nil, fmt.Errorf("load snapshot %s (version %d, want %d): %w", path, snap.Version, SnapshotVersion, ErrStaleSnapshot)
	}
	return &snap, nil
}

// CachedSnapshot returns the snapshot stored at path when it exists, is of
// the current version, and is younger than maxAge (0: any age) — unless
// refresh is set; otherwise it takes a new one and stores it. A snapshot
// with partial tables is stored with them marked, and a warning names
// them each time it is used: the caller retries them (RetakePartial).
func (w *DB) CachedSnapshot(ctx context.Context, path string, maxAge time.Duration, refresh bool, opts ProfileOptions) (*Snapshot, error) {
	if !refresh && path != "" {
		snap, err := LoadSnapshot(path)
		switch {
		case err == nil && snap.Schema.Database == w.database && (maxAge <= 0 || time.Since(snap.TakenAt) < maxAge):
			if withhold(snap, opts) {
				// Taken before these columns were protected: the file must
				// not keep their values either.
				if err := SaveSnapshot(path, snap); err != nil {
					w.logger.Warn("cannot clean the cached snapshot of withheld values", "path", path, "err", err)
				}
			}
			if partial := snap.PartialTables(); len(partial) > 0 {
				w.logger.Warn("the cached snapshot has partial profiles; their tables will be profiled again", "path", path, "tables", strings.Join(partial, ","))
			}
			return snap, nil
		case err != nil && !errors.Is(err, os.ErrNotExist):
			w.logger.Warn("ignoring cached snapshot", "path", path, "err", err)
		}
	}
	snap, err := w.TakeSnapshot(ctx, opts)
	if err != nil {
		return nil, err
	}
	if path != "" {
		if err := SaveSnapshot(path, snap); err != nil {
			w.logger.Warn("cannot cache snapshot", "path", path, "err", err)
		}
	}
	return snap, nil
}
