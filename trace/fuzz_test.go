package trace

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// FuzzBinaryReader feeds the binary reader, behind a validator, arbitrary
// input. Input that starts with the zstd magic is read as it is, so the
// fuzzer explores zstd framing; anything else is taken as a decompressed
// stream and compressed first, so the fuzzer explores the record decoder
// instead of spending its time failing zstd checksums.
func FuzzBinaryReader(f *testing.F) {
	valid := encodeBinary(f, fixture(f, "valid.jsonl"))
	exotic := encodeBinary(f, exoticRecords())
	for _, seed := range [][]byte{
		valid,
		valid[:len(valid)/2],
		decompress(f, valid),
		decompress(f, exotic),
		preamble(),
		append(preamble(), byte(KindCTA), 0, 0, 2, 2, 2, 4),
		// an access and a pages record with at (tagAccessAt, tagPagesAt)
		append(preamble(), tagAccessAt, 2, 0, 1, 4, 5, 2, 0xd8, 0x04, tagPagesAt, 0, 0, 2, 0, 1, 6, 3),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !bytes.HasPrefix(data, []byte(zstdMagic)) {
			data = compress(data)
		}
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			checkTraceError(t, err)
			return
		}
		checkDecoded(t, NewValidator(r))
	})
}

// FuzzJSONLReader feeds the JSONL reader, behind a validator, arbitrary
// input.
func FuzzJSONLReader(f *testing.F) {
	valid, err := os.ReadFile("testdata/valid.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	for _, line := range strings.Split(string(valid), "\n") {
		f.Add([]byte(line))
	}
	f.Add(encodeJSONL(f, exoticRecords()))
	f.Add([]byte(`{"type":"kernel","name":"caf\u00e9 \ud83d\ude00","grid":[1,2,3],"block":[4,5,6]}`))
	f.Add([]byte(`{"kernel":1,"type":"cta","cycles":-0,"warp_cycles":[1,2.5e3]}`))
	// at before and after its CTA's cta record
	f.Add([]byte(strings.Join(with(`{"type":"pages","kernel":1,"cta":0,"buffer":1,"r":[1],"at":3}`, `{"type":"cta","kernel":1,"cta":0,"cycles":5}`,
		`{"type":"access","kernel":1,"cta":0,"buffer":1,"lo":0,"hi":9,"mode":"r","at":5}`, `{"type":"pages","kernel":1,"cta":0,"buffer":1,"w":[2],"at":4}`, c11), "\n")))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecoded(t, NewValidator(NewJSONLReader(bytes.NewReader(data))))
	})
}

// checkDecoded reads v to its end. The error, if any, must be a *Error, and
// the records validated before it must survive both encodings unchanged.
func checkDecoded(t *testing.T, v *Validator) {
	recs, err := ReadAll(v)
	if err != nil {
		checkTraceError(t, err)
	}
	if len(recs) == 0 {
		return
	}
	if got := decodeBinary(t, encodeBinary(t, recs)); !reflect.DeepEqual(got, recs) {
		t.Errorf("binary round trip changed the records:\n got %#v\nwant %#v", got, recs)
	}
	if got := decodeJSONL(t, encodeJSONL(t, recs)); !reflect.DeepEqual(got, recs) {
		t.Errorf("JSONL round trip changed the records:\n got %#v\nwant %#v", got, recs)
	}
}

func checkTraceError(t *testing.T, err error) {
	var te *Error
	if !errors.As(err, &te) {
		t.Fatalf("error %v (%T) is not a *trace.Error", err, err)
	}
	if te.Msg == "" {
		t.Fatalf("error %#v has no message", te)
	}
}
