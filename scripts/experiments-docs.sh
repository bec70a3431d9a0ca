#!/usr/bin/env bash
# experiments-docs.sh regenerates the tables of docs/experiments.md and
# docs/validation.md that are an experiment's output verbatim: each block
# between
#
#   <!-- experiment: NAME -->
#   <!-- end experiment -->
#
# is replaced by what `go run ./cmd/experiment NAME --out out/NAME`
# prints, and each block between
#
#   <!-- scorecard: NAME -->
#   <!-- end scorecard -->
#
# by the scorecard NAME's output starts with (its first table, the
# paper's headlines judged), from the same run. With arguments, only the
# named experiments are rerun (the other blocks stay as they are);
# without, every experiment with a marked block in either doc is.
#
#   scripts/experiments-docs.sh dtbl spawn spawn-amortised
#   scripts/experiments-docs.sh validation-gpgpusim validation-accelsim validation-knee
#
# With --check, the docs are left alone: the named experiments (without
# names, the quick ones below) are rerun into a temporary directory and
# each of their blocks is compared with the page. The columns of this
# run's seconds (a header ending in "wall s" or "CPU s", and "CPU ratio";
# not a simulator's, whose header starts with GPGPU-Sim or Accel-Sim, nor
# the "CPU s" beside it) are masked on both sides. It exits 1 with a diff
# and the command that rewrites the block if any block differs. .ci/run
# runs it.
#
#   scripts/experiments-docs.sh --check            # the quick blocks
#   scripts/experiments-docs.sh --check ties crcs
#
# The paper-size runs (costgrid below) are judged across the invented
# cost constants too (--cost-grid): dtbl-paper takes about 40 minutes on
# 2 cores, spawn-paper longer. With --from DIR the named experiments are
# not rerun: their blocks are rewritten from DIR/NAME.md, what an earlier
# `go run ./cmd/experiment NAME` (with the flags this script gives it)
# printed on this code.
#
#   go run ./cmd/experiment dtbl-paper --cost-grid >saved/dtbl-paper.md
#   scripts/experiments-docs.sh --from saved dtbl-paper
set -euo pipefail
cd "$(dirname "$0")/.."
docs=(docs/experiments.md docs/validation.md)

# quick: the experiments --check reruns by default, every one with a
# block but the slow ones: the paper-size runs (tens of minutes) and
# pagoda (about 20 minutes on 2 cores, 23 of CPU, since its scorecard is
# judged across a grid that holds the tasks' invented cost constants).
# The quick ones are deterministic (fixed seeds; ties replays
# model.tie_seed 0 to 4; a grid's points run side by side but print in
# order), none over 75 seconds on 2 cores, about 5 minutes together (3
# before the invented cost constants joined the grids; the grid of each
# is what its scorecard is judged across, so the check holds them too). A new block's experiment goes in one list or the
# other; --check fails until it does.
quick=(dtbl spawn spawn-amortised spawn-streams ties crcs crcs-stated
	pagoda-host20 pagoda-scaling pagoda-model pagoda-table5
	validation-gpgpusim validation-whatif validation-dtbl-fork validation-accelsim validation-knee)
slow=(dtbl-paper spawn-paper pagoda)
# costgrid: the experiments run with --cost-grid (the results of record).
costgrid=(dtbl-paper spawn-paper)

check=0
from=
if [ "${1:-}" = --from ]; then
	from=$2
	shift 2
	[ $# -gt 0 ] || { echo "--from DIR needs the experiments to take from it" >&2; exit 2; }
fi
if [ "${1:-}" = --check ]; then
	check=1
	shift
	if [ $# -eq 0 ]; then
		for name in $(sed -n 's/^<!-- experiment: \(.*\) -->$/\1/p' "${docs[@]}"); do
			case " ${quick[*]} ${slow[*]} " in
			*" $name "*) ;;
			*) echo "the block of $name is in neither quick nor slow in $0" >&2; exit 2 ;;
			esac
		done
		set -- "${quick[@]}"
	fi
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/experiment" ./cmd/experiment
if [ $# -eq 0 ]; then
	set -- $(sed -n 's/^<!-- experiment: \(.*\) -->$/\1/p' "${docs[@]}")
fi
for name in "$@"; do
	grep -qx "<!-- experiment: $name -->" "${docs[@]}" || { echo "no block for $name in ${docs[*]}" >&2; exit 2; }
	if [ -n "$from" ]; then
		cp "$from/$name.md" "$tmp/$name.md"
		continue
	fi
	echo "running $name" >&2
	out="out/$name"
	[ $check = 0 ] || out="$tmp/out/$name"
	flags=()
	case " ${costgrid[*]} " in *" $name "*) flags=(--cost-grid) ;; esac
	TIMEFORMAT="  %0R s, %0U s CPU"
	time "$tmp/experiment" "$name" "${flags[@]}" --out "$out" >"$tmp/$name.md" 2>"$tmp/$name.log" || { cat "$tmp/$name.log" >&2; exit 1; }
done

# rewrite DOC... rewrites each DOC's blocks of the experiments run above.
rewrite() {
	for doc in "$@"; do
		awk -v dir="$tmp" '
			/^<!-- experiment: .* -->$/ {
				print
				f = dir "/" $3 ".md"
				if ((getline line < f) > 0) {
					skip = 1
					print ""
					print line
					while ((getline line < f) > 0) print line
					close(f)
					print ""
				}
				next
			}
			/^<!-- scorecard: .* -->$/ {
				print
				f = dir "/" $3 ".md"
				n = 0
				while ((getline line < f) > 0) {
					if (n == 0 && line !~ /^\| headline /) continue
					if (line == "") break
					if (n++ == 0) { skip = 1; print "" }
					print line
				}
				close(f)
				if (n > 0) print ""
				next
			}
			/^<!-- end (experiment|scorecard) -->$/ { skip = 0 }
			!skip { print }
		' "$doc" >"$tmp/doc"
		mv "$tmp/doc" "$doc"
	done
}

if [ $check = 0 ]; then
	rewrite "${docs[@]}"
	exit 0
fi

# block KIND NAME DOC prints DOC's block KIND (experiment or scorecard)
# NAME with the columns of this run's seconds masked.
block() {
	awk -v start="<!-- $1: $2 -->" '
		$0 == start { on = 1; next }
		on && /^<!-- end (experiment|scorecard) -->$/ { exit }
		!on { next }
		!/^\|/ { mask = ""; print; next }
		mask == "" {
			# A table header: choose the columns to mask by name.
			mask = "-"
			n = split($0, c, "|")
			for (i = 2; i < n; i++) {
				h = c[i]
				gsub(/^ +| +$/, "", h)
				m[i] = 0
				if (h ~ /(wall|CPU) s$/ || h == "CPU ratio")
					m[i] = h !~ /^(GPGPU-Sim|Accel-Sim) /
				if (h == "CPU s" && i > 2 && c[i-1] ~ /^ *(GPGPU-Sim|Accel-Sim) .*wall s *$/)
					m[i] = 0
				if (m[i]) mask = mask i "-"
			}
			print
			next
		}
		{
			n = split($0, c, "|")
			line = ""
			for (i = 1; i <= n; i++) {
				if (index(mask, "-" i "-") && !/^\|[-:|]+\|$/) c[i] = " (seconds) "
				line = line (i > 1 ? "|" : "") c[i]
			}
			print line
		}
	' "$3"
}

mkdir "$tmp/new"
for doc in "${docs[@]}"; do
	mkdir -p "$tmp/new/$(dirname "$doc")"
	cp "$doc" "$tmp/new/$doc"
done
(cd "$tmp/new" && rewrite "${docs[@]}")
stale=()
for name in "$@"; do
	for doc in "${docs[@]}"; do
		for kind in scorecard experiment; do
			grep -qx "<!-- $kind: $name -->" "$doc" || continue
			block "$kind" "$name" "$doc" >"$tmp/page"
			block "$kind" "$name" "$tmp/new/$doc" >"$tmp/now"
			if ! diff -u --label "$doc, $kind block $name (the page)" --label "go run ./cmd/experiment $name (now)" \
				"$tmp/page" "$tmp/now" >"$tmp/diff"; then
				cat "$tmp/diff"
				echo
				stale+=("$doc: $kind block $name")
			fi
		done
	done
done
if [ ${#stale[@]} -gt 0 ]; then
	echo "stale generated blocks (the page differs from what the experiment prints now):"
	printf '  %s\n' "${stale[@]}"
	echo "rewrite them with: scripts/experiments-docs.sh $(printf '%s\n' "${stale[@]}" | sed 's/.* //' | sort -u | paste -sd' ')"
	exit 1
fi
echo "every checked block is current: $*"
