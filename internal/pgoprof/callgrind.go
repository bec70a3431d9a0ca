package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// edge is a call edge: the call site (the calling function and the
// source line of its call instruction) and the function called.
//
// The line is the innermost one of the call instruction, as Go's line
// table has it: for a call in a function inlined into caller, a line of
// the inlined function. That is the line go build looks a call up at
// (cmd/compile/internal/pgoir.NodeLineOffset: "line :=
// int(base.Ctxt.InnermostPos(n.Pos()).RelLine())", less the line of
// the function it compiles, caller).
type edge struct {
	caller string
	line   int64
	callee string
}

// readCallgrind adds to edges the weight of each call edge in a
// callgrind output file (https://valgrind.org/docs/manual/cl-format.html):
// after a "calls=COUNT TARGET" line, the next line's position is the
// call site's line and its first cost the instructions the calls
// executed, the callee's and everything it called (inclusive, the first
// event's: callgrind's Ir). byCalls weighs an edge by COUNT, the times
// the call was made, else by that cost. It reads files with line
// positions only ("positions: line", callgrind's default), absolute
// (--compress-pos=no), names compressed or not; a recursion's depth
// suffix ('2) is dropped, so a function is one name at every depth.
// Memory is that of the edges and names, not of the file's length.
func readCallgrind(r io.Reader, edges map[edge]int64, byCalls bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	fns := map[int64]string{} // compressed function names, fn= and cfn= alike
	var (
		fn, cfn  string // the current function, the callee of the next calls=
		inCall   bool   // the line after calls=: the call site and its cost
		count    int64  // calls='s count
		skipNext bool   // the line after jump= or jcnd=: its source position
		lineNo   int
	)
	for {
		raw, err := br.ReadString('\n')
		if raw == "" && err != nil {
			if err == io.EOF {
				if inCall {
					return fmt.Errorf("callgrind line %d: file ends after calls=, before its cost line", lineNo)
				}
				return nil
			}
			return fmt.Errorf("callgrind line %d: %w", lineNo+1, err)
		}
		lineNo++
		line := strings.TrimRight(raw, "\r\n")
		if line == "" || line[0] == '#' {
			if inCall {
				return fmt.Errorf("callgrind line %d: calls= not followed by its cost line", lineNo)
			}
			continue
		}
		c := line[0]
		if c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*' {
			if skipNext {
				skipNext = false
				continue
			}
			pos, cost, err := costLine(line)
			if err != nil {
				return fmt.Errorf("callgrind line %d: %v", lineNo, err)
			}
			if inCall {
				inCall = false
				if fn == "" {
					return fmt.Errorf("callgrind line %d: a call's cost before any fn=", lineNo)
				}
				e := edge{caller: fn, line: pos, callee: cfn}
				if byCalls {
					cost = count
				}
				if edges[e] > (1<<62)-cost {
					return fmt.Errorf("callgrind line %d: %s line %d → %s: cost overflows", lineNo, fn, pos, cfn)
				}
				edges[e] += cost
				cfn = ""
			}
			continue
		}
		if inCall {
			return fmt.Errorf("callgrind line %d: calls= not followed by its cost line: %.60q", lineNo, line)
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok || strings.ContainsAny(key, " :") {
			// A header line, "key: value".
			hkey, hval, ok := strings.Cut(line, ":")
			if !ok {
				return fmt.Errorf("callgrind line %d: neither a cost, a name (key=) nor a header (key:) line: %.60q", lineNo, line)
			}
			if hkey == "positions" && strings.TrimSpace(hval) != "line" {
				return fmt.Errorf("callgrind line %d: positions %q: only \"line\" is read (callgrind without --dump-instr)", lineNo, strings.TrimSpace(hval))
			}
			continue
		}
		switch key {
		case "fn", "cfn":
			name, err := compressedName(fns, val)
			if err != nil {
				return fmt.Errorf("callgrind line %d: %s=: %v", lineNo, key, err)
			}
			if key == "fn" {
				fn, cfn = name, ""
			} else {
				cfn = name
			}
		case "calls":
			if cfn == "" {
				return fmt.Errorf("callgrind line %d: calls= without a cfn= before it (in %s)", lineNo, fn)
			}
			f := strings.Fields(val)
			if len(f) == 0 {
				return fmt.Errorf("callgrind line %d: calls= without a count", lineNo)
			}
			if count, err = number(f[0]); err != nil {
				return fmt.Errorf("callgrind line %d: calls= count %q: %v", lineNo, f[0], err)
			}
			inCall = true
		case "jump", "jcnd":
			skipNext = true
		case "ob", "fl", "fi", "fe", "cob", "cfi", "cfl":
			// Objects and files: the call site's line is all go build
			// reads of where a call is.
		default:
			return fmt.Errorf("callgrind line %d: unknown specification %q", lineNo, key)
		}
	}
}

// costLine parses "POSITION COST..." and returns the position and the
// first cost (0 when the line has none).
func costLine(line string) (pos, cost int64, err error) {
	f := strings.Fields(line)
	if f[0][0] == '+' || f[0][0] == '-' || f[0][0] == '*' {
		return 0, 0, fmt.Errorf("relative position %q: run callgrind with --compress-pos=no", f[0])
	}
	if pos, err = number(f[0]); err != nil {
		return 0, 0, fmt.Errorf("position %q: %v", f[0], err)
	}
	if len(f) > 1 {
		if cost, err = number(f[1]); err != nil {
			return 0, 0, fmt.Errorf("cost %q: %v", f[1], err)
		}
	}
	return pos, cost, nil
}

// number parses a callgrind number: decimal, or hexadecimal after 0x.
func number(s string) (int64, error) {
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		v, err := strconv.ParseUint(h, 16, 62)
		return int64(v), err
	}
	v, err := strconv.ParseUint(s, 10, 62)
	return int64(v), err
}

// compressedName resolves "(ID) NAME" (defines ID), "(ID)" (uses it) or
// "NAME", and drops a recursion depth suffix ("'2").
func compressedName(names map[int64]string, val string) (string, error) {
	val = strings.TrimSpace(val)
	if strings.HasPrefix(val, "(") {
		end := strings.IndexByte(val, ')')
		if end < 0 {
			return "", fmt.Errorf("%.60q: no ) closes the id", val)
		}
		id, err := strconv.ParseInt(val[1:end], 10, 64)
		if err != nil {
			return "", fmt.Errorf("%.60q: id: %v", val, err)
		}
		rest := strings.TrimSpace(val[end+1:])
		if rest == "" {
			name, ok := names[id]
			if !ok {
				return "", fmt.Errorf("(%d) used before it is defined", id)
			}
			return name, nil
		}
		rest = dropDepth(rest)
		names[id] = rest
		return rest, nil
	}
	if val == "" {
		return "", fmt.Errorf("empty name")
	}
	return dropDepth(val), nil
}

// dropDepth drops callgrind's recursion depth suffix: "f'2" is f.
func dropDepth(name string) string {
	i := strings.LastIndexByte(name, '\'')
	if i <= 0 || i == len(name)-1 {
		return name
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return name
		}
	}
	return name[:i]
}
