package sqlresult

import "testing"

func TestAsFloat(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want float64
		ok   bool
	}{
		{int64(-3), -3, true}, {uint64(7), 7, true}, {2.5, 2.5, true}, {"12.50", 12.5, true},
		{nil, 0, false}, {"north", 0, false}, {true, 0, false},
	} {
		if got, ok := AsFloat(tc.v); got != tc.want || ok != tc.ok {
			t.Errorf("AsFloat(%#v) = %v, %v; want %v, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

func TestKindOf(t *testing.T) {
	for typ, want := range map[string]ColumnKind{
		"DECIMAL": KindNumber, "unsigned bigint": KindNumber, "VARCHAR": KindText, "datetime": KindTime,
		"BIT": KindBool, "BLOB": KindOther, "": KindOther,
	} {
		if got := KindOf(typ); got != want {
			t.Errorf("KindOf(%q) = %v, want %v", typ, got, want)
		}
	}
	if got := (Column{Name: "n", Type: "INT"}).Kind(); got != KindNumber {
		t.Errorf("Column.Kind = %v", got)
	}
}
