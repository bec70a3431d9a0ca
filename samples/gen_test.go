package samples

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/trace"
)

func TestListSortedAndLookup(t *testing.T) {
	gs := List()
	if len(gs) < 2 {
		t.Fatalf("List() = %d generators, want bfs and synth at least", len(gs))
	}
	if !slices.IsSortedFunc(gs, func(a, b *Generator) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("List() not sorted by name")
	}
	for _, g := range gs {
		if got, ok := Lookup(g.Name); !ok || got != g {
			t.Errorf("Lookup(%q) = %v, %v", g.Name, got, ok)
		}
		if g.Doc == "" || g.run == nil {
			t.Errorf("%s: missing Doc or Run", g.Name)
		}
		for _, p := range g.Params {
			if p.Doc == "" || p.Default == "" {
				t.Errorf("%s: param %s lacks a doc or default", g.Name, p.Name)
			}
		}
		if _, err := g.ParseParams(nil); err != nil {
			t.Errorf("%s: defaults do not parse: %v", g.Name, err)
		}
	}
	if _, ok := Lookup("nosuch"); ok {
		t.Error(`Lookup("nosuch") found something`)
	}
}

// testGen is a generator with one parameter of each kind, for the parsing
// tests; it is not registered.
var testGen = &Generator{
	Name: "test",
	Params: []Param{
		{Name: "n", Default: "5"},
		{Name: "f", Default: "0.5"},
		{Name: "kind", Default: "a"},
		seedParam,
	},
}

func TestParseParamsErrors(t *testing.T) {
	for _, tc := range []struct {
		kv    []string
		param string // the ParamError's Param
		msg   string // substring of the message
	}{
		{[]string{"n"}, "", "want name=value"},
		{[]string{"=3"}, "", "want name=value"},
		{[]string{"m=3"}, "m", "no such parameter (valid: f, kind, n, seed)"},
		{[]string{"n=3", "n=4"}, "n", "given twice"},
	} {
		_, err := testGen.ParseParams(tc.kv)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != tc.param || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseParams(%q) = %v, want ParamError on %q containing %q", tc.kv, err, tc.param, tc.msg)
		}
	}
}

func TestGetters(t *testing.T) {
	p, err := testGen.ParseParams([]string{"n=7", "seed=18446744073709551615"})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := p.Int("n", 0, 10); n != 7 || err != nil {
		t.Errorf("Int(n) = %d, %v; want given value 7", n, err)
	}
	if f, err := p.Float("f", 0, 1); f != 0.5 || err != nil {
		t.Errorf("Float(f) = %g, %v; want default 0.5", f, err)
	}
	if s, err := p.Uint64("seed"); s != 1<<64-1 || err != nil {
		t.Errorf("Uint64(seed) = %d, %v", s, err)
	}
	if k, err := p.Choice("kind", "a", "b"); k != "a" || err != nil {
		t.Errorf("Choice(kind) = %q, %v", k, err)
	}
	if v := p.Values(); len(v) != 4 || v["n"] != "7" || v["f"] != "0.5" {
		t.Errorf("Values() = %v", v)
	}
}

func TestGetterErrorsNameTheParam(t *testing.T) {
	p, err := testGen.ParseParams([]string{"n=11", "f=NaN", "kind=c", "seed=-1"})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		param string
		err   error
		want  string
	}{
		{"n", second(p.Int("n", 0, 10)), "gen test: parameter n=11: want an integer in [0, 10]"},
		{"f", second(p.Float("f", 0, 1)), "gen test: parameter f=NaN: want a number in [0, 1]"},
		{"kind", second(p.Choice("kind", "a", "b")), "gen test: parameter kind=c: want one of a, b"},
		{"seed", second(p.Uint64("seed")), "gen test: parameter seed=-1: want an unsigned integer below 2^64"},
		{"zz", second(p.Int("zz", 0, 1)), "no such parameter"},
	}
	for _, c := range checks {
		var pe *ParamError
		if !errors.As(c.err, &pe) || pe.Param != c.param || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: got %v, want ParamError %q", c.param, c.err, c.want)
		}
	}
	var zero Params
	if _, err := zero.Int("n", 0, 1); err == nil {
		t.Error("zero Params returned a value")
	}
}

func second[T any](_ T, err error) error { return err }

// TestBadValuesWriteNothing checks that every generator rejects a bad value
// before writing a record, so a command can fail without a partial file.
func TestBadValuesWriteNothing(t *testing.T) {
	for _, g := range List() {
		for _, d := range g.Params {
			p, err := g.ParseParams([]string{d.Name + "=-7.5x"})
			if err != nil {
				t.Fatal(err)
			}
			var sink sliceSink
			err = g.Run(p, &sink)
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Param != d.Name || len(sink.recs) != 0 {
				t.Errorf("%s %s=-7.5x: err %v, %d records; want ParamError, none", g.Name, d.Name, err, len(sink.recs))
			}
		}
	}
}

// failSink fails on the n-th write, to check errors propagate.
type failSink struct{ n int }

var errSink = errors.New("sink full")

func (f *failSink) Write(trace.Record) error {
	if f.n--; f.n < 0 {
		return errSink
	}
	return nil
}

func TestSinkErrorsPropagate(t *testing.T) {
	for name, kv := range map[string][]string{
		"bfs":   {"scale=8", "seed=3"},
		"synth": {"kernels=3", "ctas=50", "site_rate=0.5", "seed=3"},
	} {
		g, _ := Lookup(name)
		p, err := g.ParseParams(kv)
		if err != nil {
			t.Fatal(err)
		}
		var all sliceSink
		if err := g.Run(p, &all); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, len(all.recs) / 2, len(all.recs) - 1} {
			if err := g.Run(p, &failSink{n: n}); !errors.Is(err, errSink) {
				t.Errorf("%s failing at write %d: err %v", name, n, err)
			}
		}
	}
}

// smallParams keeps each generator's convention test quick; generators not
// listed run with their defaults, which should be sample-sized.
var smallParams = map[string][]string{
	"bfs":   {"scale=9"},
	"synth": {"kernels=4", "ctas=200", "site_rate=0.2"},
}

// TestConventions runs every registered generator and checks the rules the
// package documentation promises: the header, the record order, and output
// that depends on the seed and nothing else.
func TestConventions(t *testing.T) {
	for _, g := range List() {
		t.Run(g.Name, func(t *testing.T) {
			kv := smallParams[g.Name]
			a := generate(t, g.Name, append(kv, "seed=4")...)
			if err := checkOrder(a); err != nil {
				t.Fatal(err)
			}
			h := a[0].(*trace.Header)
			if h.Version != trace.Version || h.Source != "gen:"+g.Name || h.ClockMHz <= 0 || h.Meta["seed"] != "4" {
				t.Errorf("header %+v", h)
			}
			if b := generate(t, g.Name, append(kv, "seed=4")...); !reflect.DeepEqual(a, b) {
				t.Error("same seed, different traces")
			}
			if c := generate(t, g.Name, append(kv, "seed=5")...); reflect.DeepEqual(a, c) {
				t.Error("different seeds, same trace")
			}
		})
	}
}
