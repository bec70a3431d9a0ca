#!/usr/bin/env bash
# instructions.sh prints the replay's instructions per CTA on the standard
# traces, counted by valgrind's callgrind over the whole process: a
# measure that does not move with the machine's load, as wall and CPU time
# do on a shared machine. docs/performance.md quotes its output.
#
#   scripts/instructions.sh [--quick] [--keep DIR] [RUN...]
#
# The runs (all of them when none is named):
#   synth          synth, 5M CTAs in 500 kernels, contention on (the preset's default)
#   bfs            BFS over a scale-20 Kronecker graph under CDP
#   uniform        1M CTAs of 5,000 cycles, no jitter, --set model.contention=off
#   synth-parquet, synth-csv, bfs-parquet, bfs-csv
#                  synth or bfs with --out in that format: printed as the
#                  instructions --out adds, per CTA and as a % of the run
#                  without it (which is measured too)
#   bfs4           bfs under four policies (--policy=cdp,flat,dtbl,spawn)
#   sweep8         bfs under CDP swept over 8 SM counts (--sweep gpu.sms=6,...,13)
#                  both printed as a ratio to bfs (one replay, 13 SMs): the
#                  replays of one command share the trace's decode. Each
#                  is also split, per CTA, into what every replay of the
#                  command adds (E, from (run - bfs) / (N - 1) for its N
#                  replays: an average where they differ, as bfs4's do) and what they share (D = bfs - E): the ratio
#                  is (D + N*E) / (D + E), so a cut to D raises it and
#                  only a cut to E lowers both
#
# --quick replays smaller traces (500K, scale 16, 100K CTAs): about a
# minute instead of ten. --keep DIR keeps the callgrind
# files (DIR/RUN.callgrind) for callgrind_annotate.
#
# A run is GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1, so the count
# holds only the replay's own work: no collector, no second thread, no
# preemption signals. Its CTA count is the summary table's ctas column.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=
keep=
runs=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--keep) keep=$2; shift ;;
	-*) echo "usage: scripts/instructions.sh [--quick] [--keep DIR] [RUN...]" >&2; exit 2 ;;
	*) runs+=("$1") ;;
	esac
	shift
done
[ ${#runs[@]} -gt 0 ] || runs=(synth bfs uniform synth-parquet synth-csv bfs-parquet bfs-csv bfs4 sweep8)
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind (callgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -z "$keep" ] || mkdir -p "$keep"
go build -o "$tmp/replay" ./cmd/replay
r="$tmp/replay"

if [ -n "$quick" ]; then
	synth=(kernels=50) bfs=(scale=16) uniform=(kernels=10 jitter=0)
else
	synth=(kernels=500) bfs=(scale=20) uniform=(kernels=100 jitter=0)
fi
gen() { # trace name, generator, then its parameters
	local name=$1 g=$2
	shift 2
	[ -e "$tmp/$name.trace.zst" ] && return
	local p=()
	for kv in "$@"; do p+=(--param "$kv"); done
	$r gen "$g" "${p[@]}" -o "$tmp/$name.trace.zst"
}

# instructions prints the instructions a replay with these flags and
# trace executes; label names its callgrind file.
instructions() { # label, then replay's flags and the trace
	local label=$1
	shift
	local cg="$tmp/$label.callgrind"
	GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1 \
		valgrind --tool=callgrind --callgrind-out-file="$cg" "$r" -q "$@" 2>"$tmp/valgrind.log" ||
		{ cat "$tmp/valgrind.log" >&2; exit 1; }
	[ -z "$keep" ] || cp "$cg" "$keep/$label.callgrind"
	awk '/^(summary|totals):/ {print $2; exit}' "$cg"
}

# ctas prints the CTAs a replay with these flags and trace runs: its
# summary table's ctas column.
ctas() {
	rm -rf "$tmp/sum"
	"$r" -q --format=csv --out "$tmp/sum" "$@"
	awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "ctas") c = i} NR == 2 {print $c}' "$tmp/sum/summary.csv"
}

declare -A base count
row() { printf '%-16s %10s %16s %9s %s\n' "$@"; }
row run ctas instructions per-CTA "--out adds (per CTA, % of the run without); bfs4, sweep8: x bfs; E and D a CTA"
for run in "${runs[@]}"; do
	case $run in
	synth*) gen synth synth "${synth[@]}"; trace=$tmp/synth.trace.zst; flags=() ;;
	bfs4) gen bfs bfs "${bfs[@]}"; trace=$tmp/bfs.trace.zst; flags=(); many=(--policy=cdp,flat,dtbl,spawn) replays=4 ;;
	sweep8) gen bfs bfs "${bfs[@]}"; trace=$tmp/bfs.trace.zst; flags=(); many=(--sweep gpu.sms=6,7,8,9,10,11,12,13) replays=8 ;;
	bfs*) gen bfs bfs "${bfs[@]}"; trace=$tmp/bfs.trace.zst; flags=() ;;
	uniform) gen uniform synth "${uniform[@]}"; trace=$tmp/uniform.trace.zst; flags=(--set model.contention=off) ;;
	*) echo "instructions.sh: unknown run $run" >&2; exit 2 ;;
	esac
	base_run=${run%%-*}
	case $run in bfs4 | sweep8) base_run=bfs ;; esac
	if [ -z "${base[$base_run]:-}" ]; then
		n=$(instructions "$base_run" "${flags[@]}" "$trace")
		c=$(ctas "${flags[@]}" "$trace")
		base[$base_run]=$n count[$base_run]=$c
		row "$base_run" "$c" "$n" $((n / c))
	fi
	case $run in
	*-parquet | *-csv)
		format=${run#*-}
		n=$(instructions "$run" --format="$format" --out "$tmp/out-$run" "${flags[@]}" "$trace")
		rm -rf "$tmp/out-$run"
		b=${base[$base_run]} c=${count[$base_run]}
		row "$run" "$c" "$n" $((n / c)) "+$(((n - b) / c)) (+$(((n - b) * 100 / b))%)"
		;;
	bfs4 | sweep8)
		n=$(instructions "$run" "${many[@]}" "$trace")
		b=${base[$base_run]} c=${count[$base_run]}
		e=$(((n - b) / (replays - 1)))
		row "$run" "$c" "$n" $((n / c)) "x$((n / b)).$(printf %02d $((n * 100 / b % 100))); a replay adds $((e / c)), shared $(((b - e) / c))"
		;;
	esac
done
