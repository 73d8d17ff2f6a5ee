package warehouse

import "testing"

// A reference whose target table depends on a type column, explained in
// that column's comment, joins each table it names, restricted to its code.
func TestInferTypedJoins(t *testing.T) {
	s := &Schema{Tables: []Table{
		{Name: "persons", PrimaryKey: []string{"pid"}, Columns: []Column{{Name: "pid", DataType: "bigint"}}},
		{Name: "shops", PrimaryKey: []string{"sid"}, Columns: []Column{{Name: "sid", DataType: "bigint"}}},
		{Name: "payments", PrimaryKey: []string{"id"}, Columns: []Column{
			{Name: "id", DataType: "int"},
			{Name: "payer_id", DataType: "bigint"}, {Name: "payer_type", DataType: "int", Comment: "0 for a person, 1 for shop"},
			{Name: "payee_id", DataType: "bigint"}, {Name: "payee_kind", DataType: "varchar", Comment: "P = persons; S = shops; X = external"},
			{Name: "note_id", DataType: "bigint"}, {Name: "note_type", DataType: "int"},
		}},
	}}
	got := map[string]string{}
	for _, j := range InferTypedJoins(s) {
		got[j.FromTable+"."+j.FromColumn+">"+j.ToTable+"."+j.ToColumn] = j.When.Column + "=" + j.When.Value
	}
	want := map[string]string{
		"payments.payer_id>persons.pid": "payer_type=0",
		"payments.payer_id>shops.sid":   "payer_type=1",
		"payments.payee_id>persons.pid": "payee_kind=P",
		"payments.payee_id>shops.sid":   "payee_kind=S",
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
}
