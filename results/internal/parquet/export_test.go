package parquet

import "testing"

// FieldSeeds are files for the byte-level FuzzRead, of the shapes
// FuzzFields reaches: FuzzFields' seed programs applied (the one of
// issue 75's item 3 with 2 pages, not 256), and the valid file in other
// encodings, codecs and page versions.
func FieldSeeds(tb testing.TB) [][]byte {
	progs := [][]byte{
		{opEmpty, 0, 0, 0},
		{opEncode, 5, 3, 255, opRows, 0, 0, 7, opField, 5, 0, 7, opBody, 5, bodyGrowth, 4},
		{opBody, 5, bodyLong, 6, opField, 5, 0, 1, opBody, 6, bodyIndices, 3},
		{opField, 0, 0, 1, opBody, 0, bodyZeros, 8, opRepeat, 0, 0, 1},
	}
	for col := range 7 {
		for enc := range 4 {
			c := byte(col)
			progs = append(progs, []byte{opEncode, c, byte(enc), 40, opCodec, c, byte(enc), 0, opEncode, c + 7, byte(enc) | 0x80, 9, opCodec, c + 7, byte(enc + 1), 0})
		}
	}
	var out [][]byte
	for _, prog := range progs {
		m := fieldsModel()
		f := m.file()
		for ; len(prog) >= 4; prog = prog[4:] {
			f.apply(&m, prog[0], prog[1], prog[2], prog[3])
		}
		out = append(out, f.bytes(tb))
	}
	return out
}
