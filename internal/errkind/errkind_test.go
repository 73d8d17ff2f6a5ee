package errkind

import (
	"errors"
	"fmt"
	"testing"
)

type codedError struct{ code int }

func (e *codedError) Error() string { return fmt.Sprint("code ", e.code) }

func TestOf(t *testing.T) {
	code := func(e *codedError) int { return e.code }
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, -1},
		{"other", errors.New("x"), -1},
		{"coded", &codedError{3}, 3},
		{"wrapped", fmt.Errorf("run: %w", &codedError{4}), 4},
		{"joined", errors.Join(errors.New("x"), &codedError{5}), 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Of(tc.err, code, -1); got != tc.want {
				t.Errorf("Of = %d, want %d", got, tc.want)
			}
		})
	}
}
