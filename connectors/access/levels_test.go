package access

import (
	"slices"
	"strings"
	"testing"
)

func list(s ...string) *[]string { return &s }

func TestLevelsValidate(t *testing.T) {
	ok := Level{Name: "records", Roles: []string{"records"}, DSN: "x", Hidden: list("visits.diagnosis")}
	cases := []struct {
		name   string
		levels []Level
		want   string // "" for valid
	}{
		{"own rules", []Level{ok}, ""},
		{"sees all", []Level{{Name: "staff", Users: []string{"slack:T1:U1"}, SeesAll: true}}, ""},
		{"empty own rules", []Level{{Name: "staff", Channels: []string{"slack:T1:C9"}, Hidden: list()}}, ""},
		{"no name", []Level{{Roles: []string{"r"}, SeesAll: true}}, "name is required"},
		{"reserved name", []Level{{Name: "default", Roles: []string{"r"}, SeesAll: true}}, `"default" names the warehouse's own rules`},
		{"bad name", []Level{{Name: "Front Desk", Roles: []string{"r"}, SeesAll: true}}, "must be lower-case letters"},
		{"duplicate", []Level{ok, ok}, `duplicate level "records"`},
		{"applies to nobody", []Level{{Name: "ghost", SeesAll: true}}, "say whom it applies to"},
		{"neither rules nor sees_all", []Level{{Name: "staff", Roles: []string{"r"}}}, "or sees_all: true"},
		{"both", []Level{{Name: "staff", Roles: []string{"r"}, SeesAll: true, Hidden: list()}}, "either sees_all or its own"},
		{"bad user key", []Level{{Name: "staff", Users: []string{"U1"}, SeesAll: true}}, "not platform:workspace:user"},
		{"bad hidden name", []Level{{Name: "staff", Roles: []string{"r"}, Hidden: list("a.b.c")}}, "not table or table.column"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Rules{Hidden: []string{"patients.phone"}, Levels: tc.levels}.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("valid levels refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestLevelOf(t *testing.T) {
	r := Rules{
		Hidden:    []string{"patients.phone", "invoices"},
		Sensitive: []string{"patients.birth_date"},
		Levels: []Level{
			{Name: "billing", Roles: []string{"billing"}, Hidden: list("patients.phone")},
			{Name: "ward", Channels: []string{"slack:T1:C7"}, SeesAll: true},
			{Name: "nurse", Channels: []string{"slack:T1:C8"}, Users: []string{"slack:T1:U5"}, Hidden: list("invoices"), Sensitive: list("patients.phone")},
		},
	}
	cases := []struct {
		name      string
		a         Asker
		level     string // "" for the default
		hidden    []string
		sensitive []string
	}{
		{"nobody in particular", Asker{Channel: "slack:T1:C1", User: "slack:T1:U1"}, "", []string{"patients.phone", "invoices"}, []string{"patients.birth_date"}},
		{"a role", Asker{Channel: "slack:T1:C1", User: "slack:T1:U1", Roles: []string{"billing"}}, "billing", []string{"patients.phone"}, nil},
		{"a channel", Asker{Channel: "slack:T1:C7", User: "slack:T1:U1"}, "ward", nil, nil},
		{"the first level that applies wins", Asker{Channel: "slack:T1:C7", User: "slack:T1:U1", Roles: []string{"billing"}}, "billing", []string{"patients.phone"}, nil},
		{"user and channel both needed", Asker{Channel: "slack:T1:C1", User: "slack:T1:U5"}, "", []string{"patients.phone", "invoices"}, []string{"patients.birth_date"}},
		{"user in the channel", Asker{Channel: "slack:T1:C8", User: "slack:T1:U5"}, "nurse", []string{"invoices"}, []string{"patients.phone"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, ok := r.LevelOf(tc.a)
			if ok != (tc.level != "") || l.Name != tc.level {
				t.Fatalf("level %q (%v), want %q", l.Name, ok, tc.level)
			}
			got := r
			if ok {
				got = r.ForLevel(l)
			}
			if !slices.Equal(got.Hidden, tc.hidden) || !slices.Equal(got.Sensitive, tc.sensitive) {
				t.Fatalf("rules hidden %v sensitive %v, want %v %v", got.Hidden, got.Sensitive, tc.hidden, tc.sensitive)
			}
			if ok && len(got.Levels) != 0 {
				t.Fatal("a level's rules carry levels")
			}
		})
	}
}
