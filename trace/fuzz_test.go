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
		// a valid trace with sync records of every op and a blocking copy
		decompress(f, encodeBinary(f, hostOpsTrace())),
		// a blocking copy, a pageable one (tagMemcpyCall), a device sync
		// and an event record (KindSync)
		append(preamble(), tagMemcpyCall, 2, 1, 8, 0, 100, 1, 61, tagMemcpyCall, 2, 1, 8, 0, 100, 2, 0,
			byte(KindSync), 1, 0, 0, 0xd0, 0x0f, 0xc1, 0x3e, byte(KindSync), 4, 7, 3, 24, 0),
		// a child in the long forms, then one in each short form
		// (kernelalike, launchalike, ctalaunched: TestShortForms)
		append(preamble(), byte(KindKernel), 2, 1, 'c', 2, 1, 1, 32, 1, 1, 16, 0,
			byte(KindLaunch), 9, 4, 4, 0, 0, 2, 20, 10, tagCTALaunched, 0, 0, 100, 0,
			tagKernelAlike, 0, 1, tagLaunchAlike, 1, 0, 0, 0, 0, 4, 20, tagCTADLaunched, 0, 0, 100, 0, 20, 64),
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
	// sync records among a tree's records, and copies with their call
	f.Add([]byte(strings.Join(with(`{"type":"sync","op":"record","stream":0,"event":3,"t":5}`, c10,
		`{"type":"sync","op":"wait","stream":1,"event":3,"t":6}`, `{"type":"sync","op":"stream","stream":1,"t":7,"ret":9}`, c11,
		`{"type":"sync","op":"event","event":3,"t":10,"ret":20}`, `{"type":"sync","op":"device","t":30,"ret":40}`,
		`{"type":"memcpy","dir":"d2h","buffer":1,"bytes":4,"stream":0,"t":50,"blocking":true,"ret":80}`,
		`{"type":"memcpy","dir":"h2d","buffer":1,"bytes":4,"stream":1,"t":80,"pageable":true}`), "\n")))
	f.Add(encodeJSONL(f, hostOpsTrace()))
	// created streams: created, used, used before and by another CTA,
	// created twice; an id on an own launch (issue 75)
	f.Add([]byte(strings.Join(with(k2, k3, `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":5},"stream_kind":"created","stream":4,"creates_stream":true}`,
		`{"type":"launch","kernel":3,"parent":{"kernel":1,"cta":0,"warp":0,"lane":0,"at":7},"stream_kind":"created","stream":4}`, c20, c21,
		`{"type":"cta","kernel":3,"cta":0,"cycles":1}`, `{"type":"cta","kernel":3,"cta":1,"cycles":1}`, c10, c11), "\n")))
	f.Add([]byte(strings.Join(with(k2, `{"type":"launch","kernel":2,"parent":{"kernel":1,"cta":1,"warp":0,"lane":0,"at":0},"stream":4}`, c20, c21, c10, c11), "\n")))
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

// FuzzHostIndex feeds ReadHostIndex arbitrary file ends, twice: as they
// are after a zstd magic, which explores the frame and footer, and as an
// index's records (after a first byte, the count) in a frame with a good
// checksum, which explores their decoder. A damaged index must be a
// *Error naming the host index; an index it accepts must yield exactly
// its count of host operations, which a Writer indexes the same.
func FuzzHostIndex(f *testing.F) {
	data := encodeBinary(f, hostOpsTrace())
	frame := data[len(data)-indexFrameLen(f, data):]
	records := frame[8 : len(frame)-hostIndexFooter]
	for _, seed := range [][]byte{
		frame,
		frame[:len(frame)/2],
		append([]byte{13}, records...),
		append([]byte{4}, decompress(f, encodeBinary(f, exoticHostOps()))[len(preamble()):]...),
		{1, byte(KindMemcpy), 0, 1, 'x', 0, 0, 0, 0},
		{2, byte(KindSync), 3, 0, 9, 0xd0, 0x0f, 0, tagMemcpyCall, 1, 1, 8, 0, 100, 3, 61},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ends := [][]byte{append([]byte(zstdMagic), data...)}
		if len(data) > 0 {
			ends = append(ends, append([]byte(zstdMagic), forgedRaw(data[1:], uint32(data[0]))...))
		}
		for _, end := range ends {
			x, err := ReadHostIndex(bytes.NewReader(end), int64(len(end)))
			if err != nil {
				checkTraceError(t, err)
				if !strings.HasPrefix(err.(*Error).Msg, "host index: ") {
					t.Fatalf("%v does not name the host index", err)
				}
				continue
			}
			if x == nil {
				continue
			}
			ops, err := ReadAll(x.Source())
			if err != nil || len(ops) != x.Len() {
				t.Fatalf("an accepted index yields %d of its %d records, then %v", len(ops), x.Len(), err)
			}
			for _, op := range ops {
				if !isHostOp(op) {
					t.Fatalf("an accepted index yields %#v", op)
				}
			}
			if again := indexHostOps(t, encodeBinary(t, ops)); !reflect.DeepEqual(again, ops) {
				t.Fatalf("rewritten, the index yields\n%#v\nnot\n%#v", again, ops)
			}
		}
	})
}
