package ingest_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/ingest"
	"github.com/gpureplay/gpureplay/trace"
)

const sample = "../samples/bfs-kron12.trace.zst"

// hostOps is what NextHost should give for the trace at path: its host
// launches, copies and syncs, in order.
func hostOps(t *testing.T, path string) (ops []string, records int) {
	f, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := trace.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		switch r := r.(type) {
		case *trace.Launch:
			if r.Host() {
				ops = append(ops, fmt.Sprintf("%+v", *r))
			}
		case *trace.Memcpy:
			ops = append(ops, fmt.Sprintf("%+v", *r))
		case *trace.Sync:
			ops = append(ops, fmt.Sprintf("%+v", *r))
		}
	}
	return ops, len(all)
}

// plain hides a file's host index: the host pass reads the stream.
type plain struct{ *closeCount }

// The host operations are the same from the host index, from a skimmed
// pass over the stream and from one read ahead, and the bodies are every
// record; Close closes every file opened.
func TestStreams(t *testing.T) {
	testStreams(t, sample)
}

// syncTrace has sync records of every op, two among a launch tree's
// records, and a blocking copy: NextHost yields them in program order
// with the launches and copies, from the index and from the skim.
const syncTrace = `{"type":"header","version":1,"clock_mhz":706}
{"type":"buffer","id":1,"base":0,"bytes":4096,"role":"inout"}
{"type":"sync","op":"record","stream":1,"event":3,"t":1}
{"type":"kernel","id":1,"name":"k","grid":[2,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":1,"t":2,"stream":1}
{"type":"cta","kernel":1,"cta":0,"cycles":100}
{"type":"sync","op":"wait","stream":2,"event":3,"t":3}
{"type":"sync","op":"record","stream":1,"event":4,"t":3}
{"type":"cta","kernel":1,"cta":1,"cycles":100}
{"type":"memcpy","dir":"d2h","buffer":1,"bytes":4,"stream":1,"t":4,"blocking":true,"ret":200}
{"type":"sync","op":"stream","stream":2,"t":210,"ret":220}
{"type":"sync","op":"event","event":4,"t":230}
{"type":"kernel","id":2,"name":"k","grid":[1,1,1],"block":[32,1,1],"regs":0,"smem":0}
{"type":"launch","kernel":2,"t":235,"stream":2}
{"type":"cta","kernel":2,"cta":0,"cycles":100}
{"type":"sync","op":"device","t":240,"ret":250}
`

func TestStreamsSyncs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sync.trace.zst")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := trace.NewWriter(f)
	recs, err := trace.ReadAll(trace.NewValidator(trace.NewJSONLReader(strings.NewReader(syncTrace))))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if ops, _ := hostOps(t, path); len(ops) != 9 {
		t.Fatalf("%d host operations, want 9: %v", len(ops), ops)
	}
	testStreams(t, path)
}

func testStreams(t *testing.T, sample string) {
	want, total := hostOps(t, sample)
	if len(want) == 0 {
		t.Fatal("the sample has no host operations")
	}
	if f, err := trace.Open(sample); err != nil {
		t.Fatal(err)
	} else if x, err := trace.HostIndexOf(f); x == nil || err != nil {
		t.Fatalf("the sample has no host index (%v)", err)
	} else {
		f.Close()
	}
	for _, c := range []struct {
		name  string
		index bool
		ahead bool
	}{{"indexed", true, false}, {"skimmed", false, false}, {"ahead", false, true}} {
		var opened []*closeCount
		open := func() (trace.Source, error) {
			f, err := trace.Open(sample)
			if err != nil {
				return nil, err
			}
			cc := &closeCount{SourceCloser: f}
			opened = append(opened, cc)
			if c.index {
				return cc.indexed(), nil
			}
			return plain{cc}, nil
		}
		var records func(trace.Source) trace.Source
		if c.ahead {
			records = ingest.Ahead{}.Records
		}
		s, err := ingest.Open(open, records, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			r, err := s.NextHost()
			if err != nil {
				t.Fatal(err)
			}
			if r == nil {
				break
			}
			got = append(got, fmt.Sprintf("%+v", r))
		}
		for i := range got {
			got[i] = got[i][1:] // &{...} as {...}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d host operations, want %d", c.name, len(got), len(want))
		}
		n := 0
		for ; ; n++ {
			if _, err := s.Bodies().Next(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: bodies: %v", c.name, err)
			}
		}
		if n != total {
			t.Errorf("%s: bodies hold %d records, want %d", c.name, n, total)
		}
		s.Close()
		// The first file is the host pass's: it skims the stream where
		// there is no index (trace.ReadOptions), and reads none of it
		// where there is.
		if host := opened[0].reads; c.index && host != 0 || !c.index && host > len(want)+2 { // and the header, and io.EOF
			t.Errorf("%s: the host pass read %d records of %d for %d host operations", c.name, host, total, len(want))
		}
		for i, f := range opened {
			if f.closed != 1 {
				t.Errorf("%s: source %d closed %d times, want once", c.name, i, f.closed)
			}
		}
	}
}

// closeCount counts the records a file gives and its Close calls, and
// passes read options on.
type closeCount struct {
	trace.SourceCloser
	reads, closed int
}

func (c *closeCount) Next() (trace.Record, error) {
	c.reads++
	return c.SourceCloser.Next()
}

func (c *closeCount) SetOptions(o trace.ReadOptions) { trace.SetReadOptions(c.SourceCloser, o) }

func (c *closeCount) Close() error {
	c.closed++
	return c.SourceCloser.Close()
}

// indexed is c with its file's host index and read options, where it has
// them.
func (c *closeCount) indexed() trace.Source {
	x, ok := c.SourceCloser.(interface {
		HostIndex() (*trace.HostIndex, error)
	})
	if !ok {
		return c
	}
	return indexedFile{c, x}
}

type indexedFile struct {
	*closeCount
	x interface {
		HostIndex() (*trace.HostIndex, error)
	}
}

func (f indexedFile) HostIndex() (*trace.HostIndex, error) { return f.x.HostIndex() }
