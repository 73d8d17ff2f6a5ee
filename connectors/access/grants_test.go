package access

import (
	"slices"
	"strings"
	"testing"
)

// clinicObjects is a clinic's schema as information_schema shows it: a
// generated column and views over hidden and sensitive columns, a view
// over a view, a name that needs quoting.
func clinicObjects() *Objects {
	cols := func(names ...string) []ObjectColumn {
		var out []ObjectColumn
		for _, n := range names {
			out = append(out, ObjectColumn{Name: n})
		}
		return out
	}
	patients := Object{Name: "patients", Columns: append(cols("id", "name", "phone", "birth_date"),
		ObjectColumn{Name: "phone_area", Generation: "left(`phone`,3)"})}
	return &Objects{Tables: []Object{
		patients,
		{Name: "visits", Columns: cols("id", "patient_id", "reason")},
		{Name: "invoices", Columns: cols("id", "amount")},
		{Name: "odd`name", Columns: cols("id", "we`ird")},
		{Name: "v_contact", View: true, Columns: cols("id", "phone"),
			Definition: "select `clinic`.`patients`.`id` AS `id`,`clinic`.`patients`.`phone` AS `phone` from `clinic`.`patients`"},
		{Name: "v_contact_ids", View: true, Columns: cols("id"),
			Definition: "select `clinic`.`v_contact`.`id` AS `id` from `clinic`.`v_contact`"},
		{Name: "v_ages", View: true, Columns: cols("id", "born"),
			Definition: "select `clinic`.`patients`.`id` AS `id`,year(`clinic`.`patients`.`birth_date`) AS `born` from `clinic`.`patients`"},
		{Name: "v_reasons", View: true, Columns: cols("reason", "label"),
			Definition: "select `clinic`.`visits`.`reason` AS `reason`,'phone' AS `label` from `clinic`.`visits` -- patients.phone"},
		{Name: "v_billing", View: true, Columns: cols("total"),
			Definition: "select sum(amount) AS total from invoices"},
		{Name: "v_private", View: true, Columns: cols("x")},
	}}
}

var clinicRules = Rules{Hidden: []string{"patients.phone", "invoices"}, Sensitive: []string{"patients.birth_date"}}

func TestExposures(t *testing.T) {
	var got []string
	for _, e := range clinicObjects().Exposures(clinicRules, true) {
		got = append(got, e.String())
	}
	want := []string{
		"generated column patients.phone_area reads the hidden patients.phone",
		"view v_ages computes from the sensitive patients.birth_date",
		"view v_billing reads the hidden invoices",
		"view v_contact reads the hidden patients.phone",
		"view v_contact_ids reads the hidden patients.phone",
		"view v_private (its definition cannot be read, so what it reads is unknown)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("exposures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestGrantStatements(t *testing.T) {
	g, err := GrantStatements("clinic", clinicObjects(), Account{Level: "default", User: "o'neil", Rules: clinicRules}, "CHANGE_ME")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"CREATE USER IF NOT EXISTS 'o''neil'@'%' IDENTIFIED BY 'CHANGE_ME';",
		"REVOKE ALL PRIVILEGES, GRANT OPTION FROM 'o''neil'@'%';",
		"GRANT SELECT (`id`, `name`, `birth_date`) ON `clinic`.`patients` TO 'o''neil'@'%';",
		"GRANT SELECT ON `clinic`.`visits` TO 'o''neil'@'%';",
		"GRANT SELECT ON `clinic`.`odd``name` TO 'o''neil'@'%';",
		"GRANT SELECT, SHOW VIEW ON `clinic`.`v_reasons` TO 'o''neil'@'%';",
	}
	if !slices.Equal(g.Statements, want) {
		t.Fatalf("statements:\n%s\nwant:\n%s", strings.Join(g.Statements, "\n"), strings.Join(want, "\n"))
	}
	for _, w := range []string{"invoices: hidden", "generated column patients.phone_area", "view v_contact reads", "view v_contact_ids reads", "view v_ages computes", "view v_billing", "view v_private"} {
		if !slices.ContainsFunc(g.Withheld, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("withheld does not say %q: %q", w, g.Withheld)
		}
	}
	for _, s := range g.Statements {
		for _, write := range []string{"INSERT", "UPDATE", "DELETE", "ALL PRIVILEGES ON", "CREATE ", "DROP", "ALTER", "GRANT OPTION ON", "FILE", "PROCESS"} {
			if strings.Contains(s, write) && !strings.HasPrefix(s, "CREATE USER") && !strings.HasPrefix(s, "REVOKE") {
				t.Errorf("a statement grants more than reading: %s", s)
			}
		}
	}

	t.Run("a level that sees everything", func(t *testing.T) {
		g, err := GrantStatements("clinic", clinicObjects(), Account{Level: "records", User: "rec", Host: "10.0.%", Rules: Rules{}}, "pw")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(g.Statements, "GRANT SELECT ON `clinic`.`patients` TO 'rec'@'10.0.%';") ||
			!slices.Contains(g.Statements, "GRANT SELECT, SHOW VIEW ON `clinic`.`v_contact` TO 'rec'@'10.0.%';") ||
			!slices.Contains(g.Statements, "GRANT SELECT ON `clinic`.`invoices` TO 'rec'@'10.0.%';") {
			t.Fatalf("statements: %q", g.Statements)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		for _, tc := range []struct {
			name       string
			acct       Account
			password   string
			wantErrSay string
		}{
			{"backslash in a password", Account{User: "u", Rules: clinicRules}, `p\w`, "backslash"},
			{"backslash in a user", Account{User: `u\`, Rules: clinicRules}, "pw", "backslash"},
			{"no user", Account{Rules: clinicRules}, "pw", "no user name"},
			{"a column the schema as read lacks", Account{User: "u", Rules: Rules{Hidden: []string{"patients.ssn"}}}, "pw", `table patients as read has no column "ssn"`},
			{"a table the schema as read lacks", Account{User: "u", Rules: Rules{Sensitive: []string{"labs.result"}}}, "pw", `the schema as read has no table "labs"`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := GrantStatements("clinic", clinicObjects(), tc.acct, tc.password)
				if err == nil || !strings.Contains(err.Error(), tc.wantErrSay) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErrSay)
				}
			})
		}
	})
}
