// Package policies holds the scheduling mechanisms a replay can run under.
// Each is a small replay.Policy that overrides only the decision points it
// changes; the engine does everything else.
package policies

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gpureplay/gpureplay/model"
	"github.com/gpureplay/gpureplay/replay"
)

// Info describes a policy for `replay policies` and builds it from a
// config. The built-in policies fill one in each and Register it, as a
// policy from another module does.
type Info struct {
	// Name is what --policy names: lower-case letters, digits and '-',
	// so it can sit in a spec (a+b), a list (a,b), a file name and a
	// table's policy column. Aliases are other such names for it.
	Name    string
	Aliases []string
	Doc     string // one line
	Source  string // where the mechanism comes from (a paper's section, a module)
	// Keys are the model's keys the mechanism reads besides those that
	// shape every replay (a sweep over a key of another policy's section
	// gets a warning), and Params the keys of its own it declares, with
	// their defaults: --set, --sweep and `replay policies` take them as
	// they take the model's keys.
	Keys   []string
	Params []model.Param
	New    func(cfg model.Config) replay.Policy

	builtin bool // registered by this package: its hooks are not guarded (guard.go)
}

var (
	mu       sync.RWMutex
	registry = map[string]*Info{}
	nameRE   = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
)

// Register makes a policy available to New, List and the replay command.
// It returns an error where database/sql.Register panics, because a
// policy from another module usually reaches it through replaycli.Main,
// which reports the mistake as the command's error (exit status 1); the
// built-in policies call it from init through mustRegister, where an error
// is a bug every test catches. A name or alias already taken, a malformed
// name, a missing Doc or New, a key the model does not know, or a Param
// DeclareParam refuses is an error, and the policy is not registered.
func Register(i Info) error {
	if err := check(&i); err != nil {
		return fmt.Errorf("policy %q: %w", i.Name, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, name := range append([]string{i.Name}, i.Aliases...) {
		if registry[name] != nil {
			return fmt.Errorf("policy %q: the name %s is taken by policy %s", i.Name, name, registry[name].Name)
		}
	}
	i.Params = slices.Clone(i.Params) // the caller's slice stays as it was
	for j, p := range i.Params {
		if !i.builtin {
			p = guardCheck(p, i.Name)
			i.Params[j] = p
		}
		if err := model.DeclareParam(p); err != nil {
			return fmt.Errorf("policy %q: %w", i.Name, err)
		}
		if !slices.Contains(i.Keys, p.Name) {
			i.Keys = append(slices.Clip(i.Keys), p.Name)
		}
	}
	registry[i.Name] = &i
	for _, a := range i.Aliases {
		registry[a] = &i
	}
	return nil
}

// check is what Register refuses before it changes anything.
func check(i *Info) error {
	for _, name := range append([]string{i.Name}, i.Aliases...) {
		if !nameRE.MatchString(name) {
			return fmt.Errorf("name %q: want lower-case letters, digits and '-', starting with a letter", name)
		}
	}
	if i.Doc == "" || strings.Contains(i.Doc, "\n") {
		return errors.New("want a one-line Doc")
	}
	if i.New == nil {
		return errors.New("no New")
	}
	known := model.Keys()
	for _, k := range i.Keys {
		if !slices.Contains(known, k) && !model.IsParam(k) && !slices.ContainsFunc(i.Params, func(p model.Param) bool { return p.Name == k }) {
			return fmt.Errorf("key %s: the model has no such key and the policy declares no such Param", k)
		}
	}
	return nil
}

func mustRegister(i Info) {
	i.builtin = true
	if err := Register(i); err != nil {
		panic(err)
	}
}

// List returns every policy once, sorted by name.
func List() []*Info {
	mu.RLock()
	defer mu.RUnlock()
	var out []*Info
	for name, i := range registry {
		if name == i.Name {
			out = append(out, i)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// Names returns the canonical policy names, sorted.
func Names() []string {
	var out []string
	for _, i := range List() {
		out = append(out, i.Name)
	}
	return out
}

// New builds the policy a --policy element names: one name or alias, or
// several joined with '+' that act at different decision points.
func New(spec string, cfg model.Config) (replay.Policy, error) {
	parts := strings.Split(spec, "+")
	p := replay.Policy{Name: spec}
	owner := map[string]string{}
	for _, name := range parts {
		i := lookup(strings.TrimSpace(name))
		if i == nil {
			return p, fmt.Errorf("unknown policy %q; valid policies: %s", name, strings.Join(Names(), ", "))
		}
		q, err := newPolicy(i, cfg)
		if err != nil {
			return p, err
		}
		if len(parts) > 1 && baseline(q) {
			return p, fmt.Errorf("policy %s is the baseline hardware and changes nothing in the combination %s; name the other policies without it", i.Name, spec)
		}
		if q.Tasks != nil && len(parts) > 1 {
			return p, fmt.Errorf("policy %s runs tasks on its own runtime instead of the hardware path the other policies act on; it combines with none", i.Name)
		}
		if err := merge(&p, q, i.Name, owner); err != nil {
			return p, err
		}
	}
	if _, ok := p.Sites.(*dtbl); ok && p.Aggregate != replay.AggregateNone {
		// The engine refuses the first coalescing lane of such a replay;
		// known here, it is refused before anything runs.
		return p, fmt.Errorf("policy %s aggregates launches and %s coalesces them or launches by hardware: under aggregation a lane may only launch through the device runtime or inline; combine %s with spawn, threshold or flat", owner["launch aggregation"], owner["launch sites"], owner["launch aggregation"])
	}
	return p, nil
}

// Unknown returns the first name of spec (names joined with '+') that no
// registered policy has, or "" when every one is known: a manifest made
// by a binary with policies of its own names them before any of their
// keys can fail as unknown ones.
func Unknown(spec string) string {
	for _, name := range strings.Split(spec, "+") {
		if lookup(strings.TrimSpace(name)) == nil {
			return name
		}
	}
	return ""
}

// lookup is the policy a name or alias names, or nil.
func lookup(name string) *Info {
	mu.RLock()
	defer mu.RUnlock()
	return registry[name]
}

// policySections are the model's parameter sections only some policies
// read; the others (gpu, lat, cdp, io, model, output) shape every replay.
// A declared Param's section is a policy's too.
var policySections = map[string]bool{"launch": true, "spawn": true, "dtbl": true, "crcs": true, "gemtc": true, "pagoda": true}

// Shared reports whether key shapes every replay, whatever the policy:
// it is of none of the policy sections and no policy's declared Param.
func Shared(key string) bool {
	section, _, _ := strings.Cut(key, ".")
	return !policySections[section] && !model.IsParam(key)
}

// Reads reports whether the policy spec (names joined with +) reads the
// parameter key, or key shapes every replay; false for a key of a section
// only other policies read, which a sweep over would replay alike.
func Reads(spec, key string) bool {
	if Shared(key) {
		return true
	}
	for _, name := range strings.Split(spec, "+") {
		if i := lookup(strings.TrimSpace(name)); i != nil && slices.Contains(i.Keys, key) {
			return true
		}
	}
	return false
}

// observers tells several combined mechanisms about the same progress.
type observers []replay.Observer

func fanOut(a, b replay.Observer) replay.Observer {
	if a == nil {
		return b
	}
	if os, ok := a.(observers); ok {
		return append(os, b)
	}
	return observers{a, b}
}

func (os observers) CTAStarted(ev *replay.CTAEvent) {
	for _, o := range os {
		o.CTAStarted(ev)
	}
}

func (os observers) CTAFinished(ev *replay.CTAEvent) {
	for _, o := range os {
		o.CTAFinished(ev)
	}
}
