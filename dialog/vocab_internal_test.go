package dialog

import "testing"

func TestProperName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		q, span string
		want    bool
	}{
		{"how many French patients are there?", "french", true},
		{"French patients by ward", "french", false}, // the sentence's first word
		{"how many patients speak french?", "french", false},
		{"list the doctors", "doctors", false},
	} {
		if got := properName(tt.q, tt.span); got != tt.want {
			t.Errorf("properName(%q, %q) = %v, want %v", tt.q, tt.span, got, tt.want)
		}
	}
}
