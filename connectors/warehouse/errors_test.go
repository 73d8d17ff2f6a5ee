package warehouse

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

func TestClassifyServerErrors(t *testing.T) {
	aliases := map[string]string{"o": "orders", "orders": "orders"}
	cases := []struct {
		name string
		err  error
		want error
		text string
	}{
		{"mysql unknown column with alias", &mysql.MySQLError{Number: 1054, Message: "Unknown column 'o.shipdate' in 'where clause'"}, ErrUnknownColumn, "unknown column `shipdate` in table `orders` (in the filter)"},
		{"mysql unknown column", &mysql.MySQLError{Number: 1054, Message: "Unknown column 'x' in 'field list'"}, ErrUnknownColumn, "unknown column `x` (in the selected columns)"},
		{"mysql unknown table", &mysql.MySQLError{Number: 1146, Message: "Table 'shop.nope' doesn't exist"}, ErrUnknownTable, "unknown table `nope`"},
		{"gms unknown table", &mysql.MySQLError{Number: 1105, Message: "table not found: nope"}, ErrUnknownTable, "unknown table `nope`"},
		{"gms unknown column", &mysql.MySQLError{Number: 1105, Message: `column "zz" could not be found in any table in scope`}, ErrUnknownColumn, "unknown column `zz`"},
		{"mysql time limit", &mysql.MySQLError{Number: 3024, Message: "Query execution was interrupted, maximum statement execution time exceeded"}, ErrTimeout, "10 s time limit"},
		{"mariadb time limit", &mysql.MySQLError{Number: 1969, Message: "Query execution was interrupted (max_statement_time exceeded)"}, ErrTimeout, "10 s time limit"},
		{"login", &mysql.MySQLError{Number: 1045, Message: "Access denied for user 'x'@'localhost'"}, ErrAccessDenied, "refused access"},
		{"table privilege", &mysql.MySQLError{Number: 1142, Message: "SELECT command denied to user 'x' for table 'salaries'"}, ErrAccessDenied, "salaries"},
		{"syntax", &mysql.MySQLError{Number: 1064, Message: "You have an error in your SQL syntax"}, ErrSyntax, "could not parse"},
		{"too many connections", &mysql.MySQLError{Number: 1040, Message: "Too many connections"}, ErrUnavailable, "no free connections"},
		{"broken connection", fmt.Errorf("read: %w", mysql.ErrInvalidConn), ErrUnavailable, "connection to the warehouse broke"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := classify(context.Background(), tc.err, 10*time.Second, aliases)
			if !errors.Is(err, tc.want) {
				t.Fatalf("want %v, got %v", tc.want, err)
			}
			if !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("%q should contain %q", err, tc.text)
			}
			if !errors.Is(err, tc.err) {
				t.Fatal("the cause is lost")
			}
		})
	}
}

func TestSentinelsDoNotMatchOtherKinds(t *testing.T) {
	err := &Error{Kind: KindTimeout, Msg: "x"}
	if errors.Is(err, ErrCanceled) || !errors.Is(err, ErrTimeout) {
		t.Fatal("kinds mixed up")
	}
	if errors.Is(ErrTimeout, &Error{Kind: KindTimeout, Msg: "other"}) {
		t.Fatal("a non-sentinel target must not match")
	}
}

func TestDetectFlavor(t *testing.T) {
	cases := []struct {
		version, comment string
		want             Flavor
	}{
		{"10.11.19-MariaDB-0+deb12u1", "Debian 12", FlavorMariaDB},
		{"8.0.36", "MySQL Community Server - GPL", FlavorMySQL},
		{"8.0.11-TiDB-v7.5.0", "TiDB Server", FlavorTiDB},
		{"8.0.31", "Dolt", FlavorEmbedded},
		{"5.1.0", "StarRocks version 3.2", FlavorStarRocks},
		{"5.7.99", "Doris version doris-2.0", FlavorDoris},
	}
	for _, tc := range cases {
		if got := detectFlavor(tc.version, tc.comment); got != tc.want {
			t.Errorf("%s / %s: got %s want %s", tc.version, tc.comment, got, tc.want)
		}
	}
}

func TestInferJoinsByName(t *testing.T) {
	s := &Schema{Tables: []Table{
		{Name: "categories", PrimaryKey: []string{"id"}, Columns: []Column{{Name: "id", DataType: "int"}}},
		{Name: "products", PrimaryKey: []string{"id"}, Columns: []Column{{Name: "id", DataType: "int"}, {Name: "category_id", DataType: "int"}, {Name: "sku", DataType: "varchar"}}},
		{Name: "stock", Columns: []Column{{Name: "sku", DataType: "varchar"}, {Name: "productId", DataType: "int"}}},
		{Name: "skus", PrimaryKey: []string{"sku"}, Columns: []Column{{Name: "sku", DataType: "varchar"}}},
		{Name: "notes", Columns: []Column{{Name: "category_id", DataType: "varchar"}}},
		{Name: "members", PrimaryKey: []string{"member_no"}, Columns: []Column{{Name: "member_no", DataType: "int"}}},
		{Name: "badges", Columns: []Column{{Name: "member_no", DataType: "varchar"}}},
	}}
	got := map[string]float64{}
	for _, j := range InferJoins(s) {
		got[j.FromTable+"."+j.FromColumn+">"+j.ToTable+"."+j.ToColumn] = j.Confidence
	}
	want := map[string]float64{
		"products.category_id>categories.id": 0.9, // categories → category
		"stock.productId>products.id":        0.9, // camelCase
		"stock.sku>skus.sku":                 0.8, // same name as a key
		"products.sku>skus.sku":              0.8,
		"badges.member_no>members.member_no": 0.6, // the key's own name, stored as text
	}
	for k, c := range want {
		if got[k] != c {
			t.Errorf("%s: confidence %v, want %v (all: %v)", k, got[k], c, got)
		}
	}
	if _, ok := got["notes.category_id>categories.id"]; ok {
		t.Error("text column joined to an int key")
	}
}

// Warehouses that declare no keys and name them freely: the profile shows
// which columns are unique, and a column of the same name points at one.
func TestInferJoinsFromProfiledKeys(t *testing.T) {
	prof := func(table, column string, rows, distinct int64) Profile {
		return Profile{Table: table, Column: column, Rows: rows, Distinct: distinct}
	}
	snap := &Snapshot{Schema: Schema{Tables: []Table{
		{Name: "author", RowCount: 5, Columns: []Column{{Name: "aid", DataType: "bigint"}, {Name: "name", DataType: "text"}, {Name: "oid", DataType: "bigint"}}},
		{Name: "writes", RowCount: 9, Columns: []Column{{Name: "aid", DataType: "bigint"}, {Name: "pid", DataType: "bigint"}}},
		{Name: "publication", RowCount: 7, Columns: []Column{{Name: "pid", DataType: "bigint"}, {Name: "title", DataType: "text"}, {Name: "citations", DataType: "bigint"}}},
		{Name: "organization", RowCount: 3, Columns: []Column{{Name: "oid", DataType: "bigint"}, {Name: "name", DataType: "text"}}},
		{Name: "conference", RowCount: 3, Columns: []Column{{Name: "cid", DataType: "bigint"}, {Name: "name", DataType: "text"}, {Name: "citations", DataType: "bigint"}}},
	}}, Profiles: []Profile{
		prof("author", "aid", 5, 5), prof("author", "name", 5, 5), prof("author", "oid", 5, 3),
		prof("writes", "aid", 9, 5), prof("writes", "pid", 9, 7),
		prof("publication", "pid", 7, 7), prof("publication", "title", 7, 7), prof("publication", "citations", 7, 7),
		prof("organization", "oid", 3, 3), prof("organization", "name", 3, 3),
		prof("conference", "cid", 3, 3), prof("conference", "name", 3, 3), prof("conference", "citations", 3, 3),
	}}
	got := map[string]bool{}
	for _, j := range inferProfiledKeyJoins(snap) {
		got[j.FromTable+"."+j.FromColumn+">"+j.ToTable+"."+j.ToColumn] = true
	}
	for _, want := range []string{"writes.aid>author.aid", "writes.pid>publication.pid", "author.oid>organization.oid"} {
		if !got[want] {
			t.Errorf("missing %s (all: %v)", want, got)
		}
	}
	// Unique names and measures of small tables are not keys.
	for _, not := range []string{"author.name>organization.name", "organization.name>author.name", "publication.citations>conference.citations", "conference.citations>publication.citations", "conference.name>author.name"} {
		if got[not] {
			t.Errorf("%s is not a join", not)
		}
	}
	if len(got) != 3 {
		t.Errorf("joins %v, want exactly three", got)
	}
}

// A key unique on both sides points at the table it is named after, even
// when another table's name starts with the same letter.
func TestInferJoinsToTheTableAKeyIsNamedAfter(t *testing.T) {
	prof := func(table, column string, rows, distinct int64) Profile {
		return Profile{Table: table, Column: column, Rows: rows, Distinct: distinct}
	}
	snap := &Snapshot{Schema: Schema{Tables: []Table{
		{Name: "course", RowCount: 4, Columns: []Column{{Name: "course_id", DataType: "bigint"}, {Name: "name", DataType: "text"}}},
		{Name: "course_tags_count", RowCount: 4, Columns: []Column{{Name: "course_id", DataType: "bigint"}, {Name: "hilarious", DataType: "bigint"}}},
	}}, Profiles: []Profile{
		prof("course", "course_id", 4, 4), prof("course", "name", 4, 4),
		prof("course_tags_count", "course_id", 4, 4), prof("course_tags_count", "hilarious", 4, 3),
	}}
	got := map[string]bool{}
	for _, j := range inferProfiledKeyJoins(snap) {
		got[j.FromTable+"."+j.FromColumn+">"+j.ToTable+"."+j.ToColumn] = true
	}
	if !got["course_tags_count.course_id>course.course_id"] || len(got) != 1 {
		t.Errorf("joins %v, want course_tags_count.course_id>course.course_id", got)
	}
}

// A number column named after another table, without "_id", points at
// that table's key when its values lie within the key's.
func TestInferJoinsOfColumnsNamedAfterATable(t *testing.T) {
	prof := func(table, column string, rows, distinct int64, lo, hi string) Profile {
		return Profile{Table: table, Column: column, Rows: rows, Distinct: distinct, Min: lo, Max: hi}
	}
	snap := &Snapshot{Schema: Schema{Tables: []Table{
		{Name: "semester", RowCount: 4, Columns: []Column{{Name: "semester_id", DataType: "bigint"}, {Name: "year", DataType: "bigint"}}},
		{Name: "course_offering", RowCount: 8, Columns: []Column{{Name: "offering_id", DataType: "bigint"}, {Name: "semester", DataType: "bigint"}, {Name: "year", DataType: "bigint"}}},
	}}, Profiles: []Profile{
		prof("semester", "semester_id", 4, 4, "1", "4"), prof("semester", "year", 4, 2, "2020", "2021"),
		prof("course_offering", "offering_id", 8, 8, "1", "8"), prof("course_offering", "semester", 8, 4, "1", "4"),
		prof("course_offering", "year", 8, 2, "2020", "2021"),
	}}
	got := map[string]bool{}
	for _, j := range inferTableNamedJoins(snap) {
		got[j.FromTable+"."+j.FromColumn+">"+j.ToTable+"."+j.ToColumn] = true
	}
	if !got["course_offering.semester>semester.semester_id"] || len(got) != 1 {
		t.Errorf("joins %v, want course_offering.semester>semester.semester_id", got)
	}
	// Values outside the key's range are no references to it.
	snap.Profiles[3].Max = "9"
	if js := inferTableNamedJoins(snap); len(js) != 0 {
		t.Errorf("joins %v, want none", js)
	}
}

// A column named after the last word of a longer table name (repairs.van
// for service_vans) points at its key, a few orphan ids allowed; ids kept
// as text ("3") do too, when every stored value is a whole number within
// the key's range.
func TestInferJoinsOfLastWordsAndTextIds(t *testing.T) {
	prof := func(table, column string, rows, distinct int64, lo, hi string, values ...string) Profile {
		return Profile{Table: table, Column: column, Rows: rows, Distinct: distinct, Min: lo, Max: hi, Values: values, ValuesComplete: len(values) > 0}
	}
	snap := func(region []string, vanDistinct int64) *Snapshot {
		return &Snapshot{Schema: Schema{Tables: []Table{
			{Name: "regions", PrimaryKey: []string{"region_id"}, RowCount: 5, Columns: []Column{{Name: "region_id", DataType: "int"}}},
			{Name: "field_teams", PrimaryKey: []string{"team_id"}, RowCount: 9, Columns: []Column{{Name: "team_id", DataType: "int"}, {Name: "region", DataType: "varchar"}}},
			{Name: "service_vans", PrimaryKey: []string{"van_id"}, RowCount: 10, Columns: []Column{{Name: "van_id", DataType: "int"}}},
			{Name: "repairs", PrimaryKey: []string{"repair_id"}, RowCount: 30, Columns: []Column{{Name: "repair_id", DataType: "int"}, {Name: "van", DataType: "int"}}},
		}}, Profiles: []Profile{
			prof("regions", "region_id", 5, 5, "1", "5"),
			prof("field_teams", "team_id", 9, 9, "1", "9"), prof("field_teams", "region", 9, int64(len(region)), "", "", region...),
			prof("service_vans", "van_id", 10, 10, "1", "10"),
			prof("repairs", "repair_id", 30, 30, "1", "30"), prof("repairs", "van", 30, vanDistinct, "1", "10"),
		}}
	}
	joins := func(s *Snapshot) map[string]float64 {
		got := map[string]float64{}
		for _, j := range inferTableNamedJoins(s) {
			got[j.FromTable+"."+j.FromColumn+">"+j.ToTable+"."+j.ToColumn] = j.Confidence
		}
		return got
	}
	got := joins(snap([]string{"1", "2", "4", "5"}, 11))
	if got["field_teams.region>regions.region_id"] != 0.6 || got["repairs.van>service_vans.van_id"] != 0.7 || len(got) != 2 {
		t.Errorf("joins %v, want field_teams.region (text ids, 0.6) and repairs.van (one orphan, 0.7)", got)
	}
	for name, s := range map[string]*Snapshot{
		"names, not ids":   snap([]string{"north", "south"}, 10),
		"ids out of range": snap([]string{"1", "7"}, 10),
	} {
		if _, ok := joins(s)["field_teams.region>regions.region_id"]; ok {
			t.Errorf("%s: joined", name)
		}
	}
	if _, ok := joins(snap([]string{"1"}, 13))["repairs.van>service_vans.van_id"]; ok {
		t.Error("more distinct vans than keys and a margin: joined")
	}
}
