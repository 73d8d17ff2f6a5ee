package dialog

import (
	"math"
	"testing"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// slotsOf builds slots from canonical key → one-part value strings.
func slotsOf(m map[string]string) sqlshape.Slots {
	out := sqlshape.Slots{}
	for k, v := range m {
		key := sqlshape.ParseSlotKey(k)
		out[key] = sqlshape.NewValue(key.Name, []sqlshape.Part{{Expr: v}}, nil)
	}
	return out
}

func TestInformationGain(t *testing.T) {
	t.Parallel()
	// Four equally likely interpretations; slot a splits them 2/2 (1 bit),
	// slot b separates one from the rest (0.81 bits), slot c does not
	// separate interpretations at all (same value within each group pair).
	cands := []alive{
		{p: 0.25, group: 0, slots: slotsOf(map[string]string{"measure": "SUM(x)", "filteron:tx": "a", "order": "1"})},
		{p: 0.25, group: 1, slots: slotsOf(map[string]string{"measure": "SUM(x)", "filteron:tx": "b", "order": "1"})},
		{p: 0.25, group: 2, slots: slotsOf(map[string]string{"measure": "SUM(y)", "filteron:tx": "b", "order": "1"})},
		{p: 0.25, group: 3, slots: slotsOf(map[string]string{"measure": "SUM(y)", "filteron:tx": "b", "order": "1"})},
	}
	pts := decisionPoints(cands, nil, 3)
	if len(pts) != 2 {
		t.Fatalf("want 2 points, got %+v", pts)
	}
	if pts[0].Key != sqlshape.Key(sqlshape.SlotMeasure) || math.Abs(pts[0].Gain-1) > 1e-9 {
		t.Fatalf("best point %+v", pts[0])
	}
	if math.Abs(pts[1].Gain-0.8112781244591328) > 1e-9 {
		t.Fatalf("second point %+v", pts[1])
	}
	// Once measure is asked, it is not offered again.
	if pts := decisionPoints(cands, map[sqlshape.SlotKey]bool{sqlshape.Key(sqlshape.SlotMeasure): true}, 3); pts[0].Key != sqlshape.FilterOnKey([]string{"tx"}, nil) {
		t.Fatalf("skip ignored: %+v", pts)
	}
}

func TestInformationGainWithinOneInterpretationIsZero(t *testing.T) {
	t.Parallel()
	cands := []alive{
		{p: 0.5, group: 7, slots: slotsOf(map[string]string{"tables": "a"})},
		{p: 0.5, group: 7, slots: slotsOf(map[string]string{"tables": "b"})},
	}
	if pts := decisionPoints(cands, nil, 3); len(pts) != 0 {
		t.Fatalf("a point that does not change the answer is not worth asking: %+v", pts)
	}
}

func TestOtherLumpsTheRest(t *testing.T) {
	t.Parallel()
	// Five interpretations, one slot with five values: only three can be
	// shown, so the answer distinguishes 3 values + "other".
	var cands []alive
	for i := 0; i < 5; i++ {
		cands = append(cands, alive{p: 0.2, group: i, slots: slotsOf(map[string]string{"measure": string(rune('a' + i))})})
	}
	g := decisionPoints(cands, nil, 3)[0].Gain
	want := -(3*0.2*math.Log2(0.2) + 0.4*math.Log2(0.4))
	if math.Abs(g-want) > 1e-9 {
		t.Fatalf("gain %v want %v", g, want)
	}
}
