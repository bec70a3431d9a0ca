package main

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
)

// startLines returns the line each function of an ELF binary's DWARF
// starts at (its subprogram's DW_AT_decl_line: the line of its func
// keyword, which go build subtracts from a call's line to name the call
// site), by linker symbol name, the name callgrind reports. A function
// compiled out of line and also inlined has a concrete subprogram whose
// name and line are its abstract origin's.
func startLines(path string) (map[string]int64, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	type sub struct {
		name   string
		line   int64
		origin dwarf.Offset
	}
	byOffset := map[dwarf.Offset]sub{}
	var concrete []sub
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("%s: DWARF: %w", path, err)
		}
		if e == nil {
			break
		}
		if e.Tag != dwarf.TagSubprogram {
			continue
		}
		var s sub
		s.name, _ = e.Val(dwarf.AttrName).(string)
		s.line, _ = e.Val(dwarf.AttrDeclLine).(int64)
		s.origin, _ = e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
		if s.origin != 0 {
			concrete = append(concrete, s)
		} else {
			byOffset[e.Offset] = s
		}
	}
	starts := map[string]int64{}
	for _, s := range byOffset {
		if s.name != "" && s.line > 0 {
			starts[s.name] = s.line
		}
	}
	for _, s := range concrete {
		o := byOffset[s.origin]
		if s.name == "" {
			s.name = o.name
		}
		if s.line == 0 {
			s.line = o.line
		}
		if s.name != "" && s.line > 0 {
			starts[s.name] = s.line
		}
	}
	if len(starts) == 0 {
		return nil, fmt.Errorf("%s: DWARF names no function with a start line (built with -ldflags=-w?)", path)
	}
	return starts, nil
}
