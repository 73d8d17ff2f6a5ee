package format

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// sample is a small valid Data: three lemmas, an exception list entry and
// related lists.
func sample() *Data {
	return &Data{
		Lemmas: []string{"child", "operate", "operation"},
		Readings: [][NumPOS]Reading{
			{{Synsets: 4, Tagged: 3, Freq: 214}, {}, {}, {}},
			{{}, {Synsets: 7, Tagged: 5, Freq: 82}, {}, {}},
			{{Synsets: 11, Tagged: 7, Freq: 51}, {}, {}, {}},
		},
		Except: [NumPOS][]Exception{
			{{Form: "children", Bases: []uint32{0}}},
			{{Form: "operat", Bases: []uint32{1}}, {Form: "operatt", Bases: []uint32{1, 2}}},
		},
		RelStart:   []uint32{0, 0, 1, 2},
		Rel:        []uint32{2, 1},
		BroadStart: []uint32{0, 1, 1, 1},
		Broad:      []uint32{2},
	}
}

func encode(t *testing.T, d *Data) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, d); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	d := sample()
	got, err := Decode(encode(t, d))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if !reflect.DeepEqual(got, d) {
		t.Errorf("Decode(Encode(d)) = %+v, want %+v", got, d)
	}
}

func TestEncodeRejectsInvalid(t *testing.T) {
	tests := map[string]func(d *Data){
		"unsorted lemmas":         func(d *Data) { d.Lemmas[0], d.Lemmas[1] = d.Lemmas[1], d.Lemmas[0] },
		"duplicate lemma":         func(d *Data) { d.Lemmas[1] = d.Lemmas[0] },
		"missing readings":        func(d *Data) { d.Readings = d.Readings[:2] },
		"exception out of range":  func(d *Data) { d.Except[0][0].Bases[0] = 3 },
		"unsorted exceptions":     func(d *Data) { d.Except[1][0].Form = "z" },
		"related offsets short":   func(d *Data) { d.RelStart = d.RelStart[:3] },
		"related out of range":    func(d *Data) { d.Rel[0] = 9 },
		"related offsets decline": func(d *Data) { d.RelStart = []uint32{0, 2, 1, 2} },
		"broader out of range":    func(d *Data) { d.Broad[0] = 9 },
		"broader offsets short":   func(d *Data) { d.BroadStart = d.BroadStart[:2] },
	}
	for name, spoil := range tests {
		t.Run(name, func(t *testing.T) {
			d := sample()
			spoil(d)
			if err := Encode(&bytes.Buffer{}, d); err == nil {
				t.Errorf("Encode accepted %s", name)
			}
		})
	}
}

// TestDecodeCorrupt truncates and flips bytes of a valid file: every
// variant must give an error wrapping ErrCorrupt or decode to valid data,
// never panic.
func TestDecodeCorrupt(t *testing.T) {
	good := encode(t, sample())
	for n := range len(good) {
		if _, err := Decode(good[:n]); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Decode(first %d bytes) = %v, want ErrCorrupt", n, err)
		}
	}
	for i := len(Magic); i < len(good); i++ {
		for _, v := range []byte{0x00, 0x01, 0x7f, 0x80, 0xff} {
			bad := bytes.Clone(good)
			bad[i] = v
			d, err := Decode(bad)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("byte %d = %#x: error %v does not wrap ErrCorrupt", i, v, err)
				}
				continue
			}
			if err := d.Validate(); err != nil {
				t.Errorf("byte %d = %#x: decoded invalid data: %v", i, v, err)
			}
		}
	}
	if _, err := Decode(append(bytes.Clone(good), 0)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Decode with a trailing byte = %v, want ErrCorrupt", err)
	}
}

func TestDetachmentRulesAreFresh(t *testing.T) {
	a := DetachmentRules()
	a[0][0].Suffix = "changed"
	if b := DetachmentRules(); b[0][0].Suffix != "s" {
		t.Errorf("DetachmentRules shares state: %q", b[0][0].Suffix)
	}
}
