#!/usr/bin/env bash
# make demo: count the bundled probes in the bundled E. coli genome.
set -euo pipefail
bin=${1:-./probescan}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s.%N)
"$bin" count -v -p "$here/ecoli_probes.fa" -o "$out" "$here/ecoli_K12_MG1655.fa.gz"
end=$(date +%s.%N)
echo
echo "First rows of the table:"
head -n 8 "$out" | column -t -s $'\t'
echo "..."
awk -F'\t' -v secs="$(echo "$end - $start" | bc -l 2>/dev/null || echo 0)" '
    NR > 1 { n++; if ($3 > 0) found++; total += $3 }
    END { printf "Summary: %d probes, %d found at least once, %d absent, %d occurrences in total (%.2f s)\n",
                 n, found, n - found, total, secs }' "$out"
# The README's examples call probescan by name.
if [ "$(command -v probescan 2>/dev/null)" != "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" ]; then
    echo
    echo "To run the README's examples, put this probescan on the PATH:"
    echo "  export PATH=\"$(cd "$(dirname "$bin")" && pwd):\$PATH\"    (or: make install)"
fi
