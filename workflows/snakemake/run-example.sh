#!/usr/bin/env bash
# Runs the Snakemake wrapper test and the example pipeline for real, with the
# probescan built in this repository, and fails on any difference:
#   - test/Snakefile: the wrapper on tiny inputs, tables compared with test/expected/;
#   - the wrapper test's matrix through `probescan summary` and MultiQC: the
#     report must show the three probescan sections (skipped without multiqc);
#   - example/Snakefile: FASTQ samples and yeast chromosomes scattered, counted,
#     gathered with `probescan merge`, the matrix compared with one direct run,
#     and its MultiQC report checked the same way.
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

echo "== wrapper test: ok"

# has_sections HTML: the report shows the three sections of probescan summary.
has_sections() {
    local id
    for id in probescan_samples_table probescan_top_table probescan_heatmap_plot; do
        grep -q "$id" "$1" || { echo "run-example.sh: $1 lacks the section $id" >&2; return 1; }
    done
}
passed=1 skipped=0 skips=""  # the wrapper test passed
if command -v multiqc >/dev/null; then
    echo "== MultiQC on the wrapper test's tables"
    mkdir -p "$work/mqc"
    probescan summary -o "$work/mqc" --stats "$work/wrapper-test/totals.json" "$work/wrapper-test/by_file.tsv"
    multiqc --force --no-data-dir -o "$work/mqc" "$work/mqc" > "$work/mqc.log" 2>&1 ||
        { cat "$work/mqc.log" >&2; die "multiqc failed on the summary of the wrapper test"; }
    has_sections "$work/mqc/multiqc_report.html" || die "MultiQC report without the probescan sections"
    echo "run-example.sh: ok: MultiQC $(multiqc --version | awk '{print $NF}') shows the probescan sections"
    passed=$((passed + 1))
else
    skipped=$((skipped + 1))
    skips="tool: multiqc not installed; "
fi

echo "== snakemake --lint on the example"
if ! snakemake --snakefile "$here/example/Snakefile" --directory "$work/lint" --lint > "$work/lint.txt" 2>&1 ||
    ! grep -q "good condition" "$work/lint.txt"; then
    cat "$work/lint.txt" >&2
    die "snakemake --lint found problems in the example"
fi
passed=$((passed + 1))

# The example needs the real data; a clone without it runs the wrapper test
# (and the lint) only, and says so.
if [ ! -r "$data/yeast_S288C_R64-1-1.bgzf.fa.gz" ] || [ ! -r "$data/illumina_hiseqX_10k.fq.gz" ]; then
    echo "run-example.sh: $passed passed, 0 failed, $((skipped + 3)) skipped (${skips}data: no real data in $data: set PS_DATA; the example pipeline, its check and its report skipped)"
    exit 0
fi
data=$(cd "$data" && pwd)

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
passed=$((passed + 2))
if command -v multiqc >/dev/null; then
    has_sections "$work/example/report/multiqc_report.html" || die "the example's MultiQC report lacks the probescan sections"
    echo "run-example.sh: ok: the example's MultiQC report shows the probescan sections"
    passed=$((passed + 1))
else
    skipped=$((skipped + 1))
fi
echo "run-example.sh: $passed passed, 0 failed, $skipped skipped${skips:+ (${skips%; })}"
