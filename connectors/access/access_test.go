package access

import (
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

func TestAllows(t *testing.T) {
	ana := Asker{Channel: "slack:T1:C1", User: "slack:T1:U1"}
	ben := Asker{Channel: "discord:G1:C9", User: "discord:G1:U2", Roles: []string{"R5"}}
	cases := []struct {
		name  string
		rules Rules
		who   Asker
		want  bool
	}{
		{"no rules", Rules{}, ana, true},
		{"channel listed", Rules{Channels: []string{"slack:T1:C1"}}, ana, true},
		{"channel not listed", Rules{Channels: []string{"slack:T1:C2"}}, ana, false},
		{"whole workspace", Rules{Channels: []string{"slack:T1"}}, ana, true},
		{"other workspace", Rules{Channels: []string{"slack:T2"}}, ana, false},
		{"workspace prefix is not a partial id", Rules{Channels: []string{"slack:T"}}, ana, false},
		{"user listed", Rules{Users: []string{"slack:T1:U1"}}, ana, true},
		{"user not listed", Rules{Users: []string{"slack:T1:U9"}}, ana, false},
		{"role listed", Rules{Users: []string{"slack:T1:U9"}, Roles: []string{"R5"}}, ben, true},
		{"role not held", Rules{Roles: []string{"R6"}}, ben, false},
		{"user allowed but not in this channel", Rules{Channels: []string{"slack:T1:C2"}, Users: []string{"slack:T1:U1"}}, ana, false},
		{"user allowed in this channel", Rules{Channels: []string{"slack:T1:C1"}, Users: []string{"slack:T1:U1"}}, ana, true},
		{"hidden columns restrict no one", Rules{Hidden: []string{"x.y"}}, ana, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.rules.Allows(tc.who); got != tc.want {
				t.Fatalf("Allows = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNewRejectsUnknownNames(t *testing.T) {
	cases := []struct {
		name  string
		rules Rules
		want  string
	}{
		{"unknown table", Rules{Hidden: []string{"salaries"}}, `no table "salaries"`},
		{"unknown column", Rules{Sensitive: []string{"members.ssn"}}, `members has no column "ssn"`},
		{"sensitive table", Rules{Sensitive: []string{"members"}}, "names a whole table"},
		{"three parts", Rules{Hidden: []string{"shop.members.email"}}, "not table or table.column"},
		{"bad channel", Rules{Channels: []string{"C123"}}, "not platform:workspace:channel"},
		{"bad user", Rules{Users: []string{"slack:U1"}}, "not platform:workspace:user"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.rules, shopSchema())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestFilter(t *testing.T) {
	p := shopPolicy(t)
	snap := &warehouse.Snapshot{
		Schema: *shopSchema(),
		Profiles: []warehouse.Profile{
			{Table: "members", Column: "email", Samples: []string{"ana@x.org"}},
			{Table: "members", Column: "birth_date", Min: "1950-01-01", Max: "2004-12-31", Samples: []string{"1977-03-04"}},
			{Table: "members", Column: "city", Top: []warehouse.ValueCount{{Value: "Oslo", Count: 3}}},
			{Table: "payroll", Column: "salary", Min: "100"},
		},
	}
	snap.Schema.Joins = []warehouse.Join{
		{FromTable: "loans", FromColumn: "member_id", ToTable: "members", ToColumn: "id"},
		{FromTable: "payroll", FromColumn: "member_id", ToTable: "members", ToColumn: "id"},
	}
	got := p.Filter(snap)
	if got.Schema.Table("payroll") != nil {
		t.Error("hidden table kept")
	}
	m := got.Schema.Table("members")
	if m == nil || m.Column("email") != nil || m.Column("birth_date") == nil {
		t.Fatalf("members = %+v", m)
	}
	if len(got.Schema.Joins) != 1 || got.Schema.Joins[0].FromTable != "loans" {
		t.Errorf("joins = %+v", got.Schema.Joins)
	}
	if got.Profile("members", "email") != nil || got.Profile("payroll", "salary") != nil {
		t.Error("hidden profiles kept")
	}
	if b := got.Profile("members", "birth_date"); b == nil || b.Min != "" || b.Max != "" || len(b.Samples) != 0 {
		t.Errorf("sensitive profile keeps values: %+v", b)
	}
	if c := got.Profile("members", "city"); c == nil || len(c.Top) != 1 {
		t.Errorf("ordinary profile changed: %+v", c)
	}
	// The original is untouched: the cached snapshot on disk and other
	// users of it see the full schema.
	if snap.Schema.Table("members").Column("email") == nil || snap.Profile("members", "birth_date").Min == "" || len(snap.Schema.Joins) != 2 {
		t.Error("Filter changed its input")
	}
}
