package token

import "testing"

func TestNumberWords(t *testing.T) {
	cases := []struct {
		text string
		want []float64 // the numbers read, in order
	}{
		{"fewer than a hundred thousand people", []float64{100000}},
		{"top five customers", []float64{5}},
		{"more than ten times", []float64{10}},
		{"over 1.5 million dollars", []float64{1.5e6}},
		{"twenty five orders and two hundred fifty lines", []float64{25, 250}},
		{"one hundred and five", []float64{105}},
		{"at least one other state", []float64{1}},
		{"the one with the most orders", nil},
		{"a list of customers", nil},
		{"'five' as a name", nil},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			var got []float64
			for _, tk := range JoinNumbers(Lex(tc.text, 0)) {
				if tk.IsNum {
					got = append(got, tk.Num)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("numbers %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("numbers %v, want %v", got, tc.want)
				}
			}
		})
	}
}
