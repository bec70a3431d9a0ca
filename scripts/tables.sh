#!/usr/bin/env bash
# tables.sh replays a fixed set of traces — the sample, and small traces
# of the generators — under every policy, with the contention model off
# and on, and writes every run's tables as CSV into one directory: a
# check that a change to the engine leaves every table byte-identical.
#
#   scripts/tables.sh save DIR    replay with this tree's build into DIR
#   scripts/tables.sh check DIR   replay again and compare with DIR (cmp)
#
# Each run is made twice: with --out, and without (its terminal summary
# kept): a replay that keeps no rows takes the engine's plain paths (a
# CTA no mechanism or table watches ends without a row built,
# replay/swap.go), and one that keeps rows takes them only under the
# contention model (replay/plainrows.go), so the tables never see them
# with the model off: their makespans and counts are checked on their
# own, and each run's makespans against its summary table's (the same
# replays, with rows and without).
#
# Save the baseline from the commit before the change, check after it.
# The runs take about two minutes of one core.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
dir=${2:-}
if [ -z "$dir" ] || { [ "$mode" != save ] && [ "$mode" != check ]; }; then
	echo "usage: scripts/tables.sh save|check DIR" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/replay" ./cmd/replay
r="$tmp/replay"
$r gen bfs --param scale=10 -o "$tmp/bfs.trace.zst"
$r gen mandel --param width=256 --param height=256 -o "$tmp/mandel.trace.zst"
$r gen 3mm --param size=128 -o "$tmp/3mm.trace.zst"
$r gen hotspot --param size=128 --param iterations=4 -o "$tmp/hotspot.trace.zst"
$r gen tasks --param count=64 -o "$tmp/tasks.trace.zst"
out="$tmp/out"
run() { # name, then replay's flags and traces
	local name=$1
	shift
	$r -q --format=csv --out "$out/$name" "$@"
	$r "$@" >"$out/$name.rowless.txt"
}
dp=(samples/bfs-kron12.trace.zst "$tmp/bfs.trace.zst" "$tmp/mandel.trace.zst")
for c in off on; do
	run "dp-$c" --policy=cdp,flat,threshold,dtbl,spawn --set model.contention=$c "${dp[@]}"
	run "io-$c" --gpu=gk110-64 --policy=baseline,overlap1,crcs,ppcs --set model.contention=$c "$tmp/3mm.trace.zst" "$tmp/hotspot.trace.zst"
	run "tasks-$c" --gpu=titanx --policy=hyperq,gemtc,pagoda --set model.contention=$c "$tmp/tasks.trace.zst"
done
run dtbl-dispatch --policy=dtbl --set dtbl.fallback=dispatch "${dp[@]}"
run crcs-access --gpu=gk110-64 --policy=crcs,ppcs --set crcs.gate=access "$tmp/3mm.trace.zst"
for g in warp block kernel; do
	run "klap-$g" --policy=klap --set klap.granularity=$g "${dp[@]}"
done
# The plain paths against the rows': trace, policy and makespan of every
# replay, from the summary table and from the terminal's summary.
for f in "$out"/*.rowless.txt; do
	name=$(basename "$f" .rowless.txt)
	if ! cmp -s <(awk -F, 'NR > 1 {print $1, $2, $5}' "$out/$name/summary.csv") \
		<(awk 'NR > 1 {print $1, $2, $3}' "$f"); then
		echo "$name: the makespans without rows differ from the summary table's" >&2
		exit 1
	fi
done
if [ "$mode" = save ]; then
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	cp -r "$out" "$dir"
	echo "saved $(find "$dir" -type f | wc -l) tables in $dir"
	exit 0
fi
diff -r "$dir" "$out" >/dev/null || { diff -rq "$dir" "$out" >&2; echo "tables differ" >&2; exit 1; }
echo "$(find "$out" -type f | wc -l) tables identical to $dir"
