#!/usr/bin/env bash
# Runs the Snakemake wrapper test and the example pipeline for real, with the
# probescan built in this repository, and fails on any difference:
#   - test/Snakefile: the wrapper on tiny inputs, tables compared with test/expected/;
#   - example/Snakefile: FASTQ samples and yeast chromosomes scattered, counted,
#     gathered with `probescan merge`, the matrix compared with one direct run.
# Usage: workflows/snakemake/run-example.sh [WORKDIR]
#   WORKDIR keeps the results (default: a temporary directory, removed at the end).
#   Data: $PS_DATA, else ../shared/data beside the repository.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
data=${PS_DATA:-$repo/../shared/data}
cores=${CORES:-2}

die() { echo "run-example.sh: $*" >&2; exit 1; }
[ -x "$repo/probescan" ] || die "no $repo/probescan: build it first with make"
command -v snakemake >/dev/null || die "snakemake not found; install it with: sudo apt-get install -y snakemake"
[ -d "$data" ] || die "no data directory $data (set PS_DATA)"
data=$(cd "$data" && pwd)
export PATH="$repo:$PATH"   # the wrapper and the rules call `probescan`

if [ $# -ge 1 ]; then
    work=$1
    mkdir -p "$work"
    work=$(cd "$work" && pwd)
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/probescan-workflow.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi
echo "run-example.sh: snakemake $(snakemake --version), probescan $(probescan --version), work in $work"

echo "== wrapper test (workflows/snakemake/test)"
snakemake --snakefile "$here/test/Snakefile" --directory "$work/wrapper-test" --cores "$cores" \
    --printshellcmds --forceall
[ -f "$work/wrapper-test/test.ok" ] || die "wrapper test did not finish"

echo "== example pipeline (workflows/snakemake/example)"
snakemake --snakefile "$here/example/Snakefile" --directory "$work/example" --cores "$cores" \
    --printshellcmds --forceall --config data="$data"
# The pipeline's own check rule compared them already; compare again here so
# that this script's status does not rest on the pipeline alone.
cmp "$work/example/matrix.tsv" "$work/example/direct.tsv" || die "merged matrix differs from the direct run"
[ -f "$work/example/check.ok" ] || die "the example's check rule did not run"

rows=$(($(wc -l < "$work/example/matrix.tsv") - 1))
chunks=$(find "$work/example/counts" -name '*.tsv' | wc -l)
echo "run-example.sh: ok: $chunks chunk tables merged into a $rows-probe matrix equal to the direct run:"
head -n 4 "$work/example/matrix.tsv"
