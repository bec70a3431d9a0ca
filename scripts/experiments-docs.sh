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
set -euo pipefail
cd "$(dirname "$0")/.."
docs=(docs/experiments.md docs/validation.md)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/experiment" ./cmd/experiment
if [ $# -eq 0 ]; then
	set -- $(sed -n 's/^<!-- experiment: \(.*\) -->$/\1/p' "${docs[@]}")
fi
for name in "$@"; do
	grep -qx "<!-- experiment: $name -->" "${docs[@]}" || { echo "no block for $name in ${docs[*]}" >&2; exit 2; }
	echo "running $name" >&2
	"$tmp/experiment" "$name" --out "out/$name" >"$tmp/$name.md" 2>"$tmp/$name.log" || { cat "$tmp/$name.log" >&2; exit 1; }
done
for doc in "${docs[@]}"; do
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
