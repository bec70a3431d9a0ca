#!/usr/bin/env bash
# pgo.sh rebuilds cmd/replay/default.pgo, the CPU profile `go build`
# optimises the replay binary with (profile-guided optimisation: the
# hot paths' calls, such as smArray.enter and leave, are inlined beyond
# the usual budget). The profile is of the runs issue-sized studies spend
# their time in: synth 5M with the contention model on, with and without
# --out, BFS scale 20 under cdp, with and without --out, and 1M CTAs of
# one length with the model off (scripts/instructions.sh's uniform run).
#
#   scripts/pgo.sh        (a few minutes; rerun after large engine changes)
#
# A stale profile costs only the speed it no longer gives: the results
# never depend on it.
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
prof() { # trace, extra flags
	n=$((n + 1))
	$r --policy=cdp -q --cpuprofile "$tmp/$n.prof" "$@"
	profiles+=("$tmp/$n.prof")
	rm -rf "$tmp/out"
}
prof "$tmp/synth.trace.zst"
prof --out "$tmp/out" "$tmp/synth.trace.zst"
for i in 1 2 3 4; do prof "$tmp/bfs.trace.zst"; done
prof --out "$tmp/out" "$tmp/bfs.trace.zst"
prof --set model.contention=off "$tmp/uniform.trace.zst"
go tool pprof -proto "${profiles[@]}" > cmd/replay/default.pgo
echo "wrote cmd/replay/default.pgo from ${#profiles[@]} profiles"
