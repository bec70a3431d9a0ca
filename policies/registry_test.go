package policies

import (
	"strings"
	"testing"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// A policy registered from outside is built, listed and combined like a
// built-in one, and its own keys are read by it alone.
func TestRegister(t *testing.T) {
	var got int64
	err := Register(Info{
		Name:   "rtest",
		Doc:    "inlines everything, reading rtest.k",
		Source: "this test",
		Keys:   []string{"cdp.param_a"},
		Params: []model.Param{{Name: "rtest.k", Default: 3, Doc: "a knob"}},
		New: func(cfg model.Config) replay.Policy {
			got = cfg.Int("rtest.k")
			return replay.Policy{Name: "rtest", Sites: replay.InlineAll{}}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := k20c(t)
	if err := cfg.Set("rtest.k", "5"); err != nil {
		t.Fatal(err)
	}
	p, err := New("rtest+ppcs", cfg)
	if err != nil || got != 5 || decide(t, p, 9)[0] != replay.Inline || p.Placer == nil {
		t.Fatalf("rtest+ppcs: %v, read k=%d", err, got)
	}
	if !Reads("rtest", "rtest.k") || Reads("cdp", "rtest.k") || !Reads("rtest", "cdp.param_a") {
		t.Error("Reads: rtest.k is rtest's alone")
	}
	var listed *Info
	for _, i := range List() {
		if i.Name == "rtest" {
			listed = i
		}
	}
	if listed == nil || strings.Join(listed.Keys, ",") != "cdp.param_a,rtest.k" {
		t.Errorf("listed: %+v", listed)
	}
}

func TestRegisterRefuses(t *testing.T) {
	ok := Info{Name: "rtest2", Doc: "d", New: func(model.Config) replay.Policy { return replay.Policy{} }}
	for what, mod := range map[string]func(*Info){
		"taken name":      func(i *Info) { i.Name = "cdp" },
		"taken alias":     func(i *Info) { i.Aliases = []string{"baseline"} },
		"plus in name":    func(i *Info) { i.Name = "a+b" },
		"upper case":      func(i *Info) { i.Name = "Mine" },
		"no doc":          func(i *Info) { i.Doc = "" },
		"two-line doc":    func(i *Info) { i.Doc = "a\nb" },
		"no New":          func(i *Info) { i.New = nil },
		"unknown key":     func(i *Info) { i.Keys = []string{"cdp.nope"} },
		"model's section": func(i *Info) { i.Params = []model.Param{{Name: "spawn.k", Default: 1}} },
	} {
		i := ok
		mod(&i)
		if err := Register(i); err == nil {
			t.Errorf("%s: registered", what)
		}
	}
	if lookup("rtest2") != nil {
		t.Error("a refused policy was registered")
	}
}
