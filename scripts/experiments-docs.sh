#!/usr/bin/env bash
# experiments-docs.sh regenerates the tables of docs/experiments.md and
# docs/validation.md that are an experiment's output verbatim: each block
# between
#
#   <!-- experiment: NAME -->
#   <!-- end experiment -->
#
# is replaced by what `go run ./cmd/experiment NAME --out out/NAME`
# prints. With arguments, only the named experiments are rerun (the other
# blocks stay as they are); without, every marked block of both docs is.
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
		/^<!-- end experiment -->$/ { skip = 0 }
		!skip { print }
	' "$doc" >"$tmp/doc"
	mv "$tmp/doc" "$doc"
done
