#!/usr/bin/env bash
# pgo.sh rebuilds cmd/replay/default.pgo, the CPU profile `go build`
# optimises the replay binary with (profile-guided optimisation: the
# hot paths' calls, such as smArray.enter and leave, are inlined beyond
# the usual budget). The profile is of the runs issue-sized studies spend
# their time in: synth 5M with the contention model on, with and without
# --out, BFS scale 20 under cdp, with and without --out, and 1M CTAs of
# one length with the model off (scripts/instructions.sh's uniform run).
#
#   scripts/pgo.sh        (a few minutes, python3 for the ballast; rerun after large engine changes)
#
# A stale profile costs only the speed it no longer gives: the results
# never depend on it. The remade profile is kept when the sum of
# `scripts/instructions.sh --quick synth bfs uniform` is lower with it
# than with the one it replaces (docs/performance.md); else restore
# that one with `git checkout cmd/replay/default.pgo`.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -pgo=off -o "$tmp/replay" ./cmd/replay
r="$tmp/replay"
$r gen synth --param kernels=500 --param ctas=10000 -o "$tmp/synth.trace.zst"
$r gen bfs --param scale=20 -o "$tmp/bfs.trace.zst"
$r gen synth --param kernels=100 --param jitter=0 -o "$tmp/uniform.trace.zst"
profiles=()
n=0
# Each run is profiled reps times: go build inlines the calls the profile
# shows hot, and with one run each (100 samples a second, some 1,200 in
# all) which calls made the cut changed from one profile to the next:
# two profiles of the same code gave scripts/instructions.sh --quick
# uniform 1,540 and 1,591. The runs sample at 250 a second of CPU time
# (GPUREPLAY_CPUPROFILE_HZ; runtime/pprof's own rate is 100), the most
# this machine's timer delivers: asked 1,000, a run got a third more
# samples than at 250, each weighed as a millisecond where it stood for
# about four. They run on one thread with no asynchronous preemption, as
# scripts/instructions.sh counts: the path it counts (the tree reader's
# runCTAs, not the read-ahead's batches), and no preemption edges landing
# anywhere or goroutines meeting as the machine's load has them.
reps=16
hz=250
prof() { # trace, extra flags
	for _ in $(seq $reps); do
		n=$((n + 1))
		GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 GPUREPLAY_CPUPROFILE_HZ=$hz $r --policy=cdp -q --cpuprofile "$tmp/$n.prof" "$@" 2>"$tmp/stderr" ||
			{ cat "$tmp/stderr" >&2; exit 1; }
		grep -v '^runtime: cannot set cpu profile rate' "$tmp/stderr" >&2 || true
		profiles+=("$tmp/$n.prof")
		rm -rf "$tmp/out"
	done
}
prof "$tmp/synth.trace.zst"
prof --out "$tmp/out" "$tmp/synth.trace.zst"
prof "$tmp/bfs.trace.zst"
prof "$tmp/bfs.trace.zst"
prof --out "$tmp/out" "$tmp/bfs.trace.zst"
prof --set model.contention=off "$tmp/uniform.trace.zst"
go tool pprof -proto "${profiles[@]}" > "$tmp/merged.pgo"
# go build counts hot the heaviest call edges that together make 99% of
# the profile's weight, a line that falls in the long tail of edges seen
# once or not at all, which differ from one profile to the next. A
# ballast of one edge between two functions no program has, weighing
# (100 tail - 1) times the profile's own, moves the line to where the
# lightest tail% of the real weight is left cold.
tail=30
weight=$(go tool preprofile -i "$tmp/merged.pgo" -o /dev/stdout | awk 'NR > 1 && NR % 3 == 1 {w += $2} END {print w}')
python3 - "$tmp/ballast.pb" $((weight * (tail - 1))) <<'PY'
import sys
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)
def key(num, wire):
    return varint(num << 3 | wire)
def num(field, v):
    return key(field, 0) + varint(v)
def msg(field, body):
    return key(field, 2) + varint(len(body)) + body
def packed(field, vals):
    return msg(field, b"".join(varint(v) for v in vals))
strings = ["", "samples", "count", "cpu", "nanoseconds",
           "gpureplay.pgoBallastCaller", "gpureplay.pgoBallastCallee", "ballast.go"]
w = int(sys.argv[2])
p = bytearray()
p += msg(1, num(1, 1) + num(2, 2))  # sample_type samples/count
p += msg(1, num(1, 3) + num(2, 4))  # sample_type cpu/nanoseconds
p += msg(2, packed(1, [2, 1]) + packed(2, [w, w * 4000000]))  # callee's location, then caller's
for loc, fn, line in ((1, 1, 3), (2, 2, 13)):
    p += msg(4, num(1, loc) + msg(4, num(1, fn) + num(2, line)))
for fn, name in ((1, 5), (2, 6)):
    p += msg(5, num(1, fn) + num(2, name) + num(3, name) + num(4, 7) + num(5, 1))
for s in strings:
    p += msg(6, s.encode())
p += msg(11, num(1, 3) + num(2, 4))  # period_type cpu/nanoseconds
p += num(12, 4000000)
open(sys.argv[1], "wb").write(p)
PY
go tool pprof -proto "$tmp/merged.pgo" "$tmp/ballast.pb" > cmd/replay/default.pgo
echo "wrote cmd/replay/default.pgo from ${#profiles[@]} profiles"
