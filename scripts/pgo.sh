#!/usr/bin/env bash
# pgo.sh rebuilds cmd/replay/default.pgo, the profile `go build`
# optimises the replay binary with (profile-guided optimisation: the
# hot paths' calls, such as smArray.enter and leave, are inlined beyond
# the usual budget). The profile is of the runs issue-sized studies spend
# their time in: synth with the contention model on, with and without
# --out, BFS under cdp, with and without --out, CTAs of one length with
# the model off, and BFS under the four policies of a comparison at once
# (scripts/instructions.sh's runs, at its --quick sizes; the last is its
# bfs4, whose DTBL and SPAWN paths the others do not reach).
#
#   scripts/pgo.sh [--keep DIR]   (about eight minutes; needs valgrind)
#
# --keep DIR keeps the pgo=off binary, the callgrind files (DIR/replay,
# DIR/1.callgrind ... 6.callgrind) and the profiles tried
# (DIR/hot90.pgo ...): `go run ./internal/pgoprof -bin DIR/replay -by
# calls -hot 92 -nested -o FILE DIR/{1,2,3,3,4,5,6}.callgrind` writes one
# again (with another -hot, say) without the runs.
#
# The profile is not sampled but counted: each run goes under valgrind's
# callgrind, as scripts/instructions.sh counts, and each call edge (a
# call site and the function it calls) weighs the times the call was
# made (internal/pgoprof). The same tree makes the same binary, whose
# runs make the same calls, so two remakes of one tree give the same
# profile, where sampled ones gave counts up to 0.34% apart and moved
# which calls were inlined from one remake to the next
# (docs/performance.md); but for the four policies' run, whose replays
# take turns at one shared decode in the order their goroutines run, so
# that its counts move a little (two remakes' --quick counts 0.18%
# apart). A stale profile costs only the speed it no longer gives: the
# results never depend on it. A remade profile takes the tree's place
# only where the sum of `scripts/instructions.sh --quick synth bfs
# uniform bfs4` (instructions a CTA) is lower with it (the end of the
# script); the counts are the instructions' own.
set -euo pipefail
cd "$(dirname "$0")/.."
keep=
case ${1:-} in
--keep) keep=$2 ;;
"") ;;
*) echo "usage: scripts/pgo.sh [--keep DIR]" >&2; exit 2 ;;
esac
command -v valgrind >/dev/null || { echo "pgo.sh: needs valgrind (callgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The binary profiled is built without a profile: the calls a profile
# would inline are calls in it, which callgrind sees, so the profile
# depends on the code alone and not on the profile it replaces.
go build -pgo=off -o "$tmp/replay" ./cmd/replay
go build -o "$tmp/pgoprof" ./internal/pgoprof
r="$tmp/replay"
$r gen synth --param kernels=50 -o "$tmp/synth.trace.zst"
$r gen bfs --param scale=16 -o "$tmp/bfs.trace.zst"
$r gen synth --param kernels=10 --param jitter=0 -o "$tmp/uniform.trace.zst"
files=()
n=0
# Each run is one thread, no collector and no asynchronous preemption, as
# scripts/instructions.sh counts: the path it counts (the tree reader's
# runCTAs, not the read-ahead's batches), nothing that moves with the
# machine's load. Names and positions uncompressed, as pgoprof reads them.
prof() { # replay's flags (its policies first) and trace
	n=$((n + 1))
	GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1 nice valgrind --tool=callgrind \
		--compress-strings=no --compress-pos=no --callgrind-out-file="$tmp/$n.callgrind" \
		"$r" -q "$@" 2>"$tmp/valgrind.log" ||
		{ cat "$tmp/valgrind.log" >&2; exit 1; }
	files+=("$tmp/$n.callgrind")
	rm -rf "$tmp/out"
}
prof --policy=cdp "$tmp/synth.trace.zst"
prof --policy=cdp --out "$tmp/out" "$tmp/synth.trace.zst"
prof --policy=cdp "$tmp/bfs.trace.zst"
files+=("$tmp/$n.callgrind") # BFS without --out counts twice, as it did sampled
prof --policy=cdp --out "$tmp/out" "$tmp/bfs.trace.zst"
prof --policy=cdp --set model.contention=off "$tmp/uniform.trace.zst"
prof --policy=cdp,flat,dtbl,spawn "$tmp/bfs.trace.zst"
# go build counts hot the heaviest call edges that together make 99% of
# the profile's weight; -hot moves that line (a ballast edge,
# internal/pgoprof) to the calls' HOT%, give or take a point, where the
# weights leave the widest gap. Calls, not the instructions under them:
# callgrind charges a call the instructions run until it returns, and
# where the runtime switches goroutines (the --out writers, the
# scheduler's time slices, by the clock) that is other goroutines' work,
# as much as 70 times an edge's own from one run to the next.
# -nested adds, for each hot call inside a hot call, the edge go build
# looks it up by where the outer call is inlined (internal/pgoprof's
# nested): the binary profiled, built without a profile, names it by
# the function it is in.
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	cp "$r" "$tmp"/*.callgrind "$keep"/
fi
# Which profile the tree keeps is a rule (docs/performance.md): the one
# whose binary runs scripts/instructions.sh --quick synth bfs uniform
# bfs4 in the fewest instructions a CTA, summed (bfs4's paths are
# profiled too: a change that moves only DTBL's lines is judged by it). Where the line falls among the
# edges moves with the code (at 92 it has fallen among edges of some
# 12,000 calls and of some 3,700; at 95 of some 1,900), and so does
# which line serves best: the profile at each of a few is tried against
# the tree's own, and the lowest sum kept. A profile can inline enough
# into a nosplit function (swapPlain, contention.Model.Swap) that the
# build fails: such a profile is passed over.
quick() { # the sum of the --quick counts a CTA with profile $1
	GOFLAGS="-pgo=$1" scripts/instructions.sh --quick synth bfs uniform bfs4 | awk 'NR > 1 { s += $4 } END { print s }'
}
best=$(quick "$PWD/cmd/replay/default.pgo")
echo "pgo.sh: the tree's profile: $best instructions a CTA (--quick synth + bfs + uniform + bfs4)"
from=
for hot in 90 92 95; do
	"$tmp/pgoprof" -bin "$r" -by calls -hot "$hot" -nested -o "$tmp/hot$hot.pgo" "${files[@]}"
	if ! go build -pgo="$tmp/hot$hot.pgo" -o "$tmp/replay-pgo" ./cmd/replay; then
		echo "pgo.sh: the replay does not build with the profile at -hot $hot; passed over" >&2
		continue
	fi
	sum=$(quick "$tmp/hot$hot.pgo")
	echo "pgo.sh: remade at -hot $hot: $sum instructions a CTA"
	# Lower by more than the counts' own spread (0.2%, repeated runs of
	# one binary), so that a profile no better does not replace the one
	# the counts in the docs were made with.
	if [ $((sum * 1000)) -lt $((best * 998)) ]; then
		best=$sum from=$hot
	fi
done
if [ -n "$keep" ]; then cp "$tmp"/hot*.pgo "$keep"/; fi
if [ -z "$from" ]; then
	echo "pgo.sh: cmd/replay/default.pgo is unchanged: no remade profile does better"
	exit 0
fi
cp "$tmp/hot$from.pgo" cmd/replay/default.pgo
echo "wrote cmd/replay/default.pgo from ${#files[@]} callgrind files at -hot $from"
