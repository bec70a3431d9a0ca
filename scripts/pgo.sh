#!/usr/bin/env bash
# pgo.sh rebuilds cmd/replay/default.pgo, the CPU profile `go build`
# optimises the replay binary with (profile-guided optimisation: the
# hot paths' calls, such as smArray.enter and leave, are inlined beyond
# the usual budget). The profile is of the runs issue-sized studies spend
# their time in: synth 5M with the contention model on, with and without
# --out, BFS scale 20 under cdp, with and without --out, and 1M CTAs of
# one length with the model off (scripts/instructions.sh's uniform run).
#
#   scripts/pgo.sh        (about a minute; rerun after large engine changes)
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
# uniform 1,540 and 1,591.
reps=16
prof() { # trace, extra flags
	for _ in $(seq $reps); do
		n=$((n + 1))
		$r --policy=cdp -q --cpuprofile "$tmp/$n.prof" "$@"
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
go tool pprof -proto "${profiles[@]}" > cmd/replay/default.pgo
echo "wrote cmd/replay/default.pgo from ${#profiles[@]} profiles"
