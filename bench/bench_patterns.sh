#!/usr/bin/env bash
# make bench (patterns): the pattern engine beside the tools users run today.
#   - every PATTERN entry of a PROSITE release over UniProt proteins, beside
#     EMBOSS fuzzpro (one process per pattern, as it takes one pattern; a
#     sample of patterns, scaled, when it is slow);
#   - DNA 20-mers sampled from the yeast genome with up to D mismatches on
#     both strands, beside seqkit locate -m (on a sample of probes, scaled).
# Whole processes are timed, each figure the median of RUNS runs.
# Environment: PS_DATA (real data folder), THREADS (default: all cores), RUNS (default 3).
set -euo pipefail
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
source "$here/common.sh"

header
for f in prosite_r14.dat uniprot_20k.fa.gz yeast_S288C_R64-1-1.bgzf.fa.gz; do
    [ -f "$data/$f" ] || { echo "skip: $f not in $data"; exit 0; }
done

gzip -dc "$data/uniprot_20k.fa.gz" > "$work/u.fa"
res=$(grep -v '>' "$work/u.fa" | tr -d '\n' | wc -c)
t=$(timeit "$bin" count -q -t "$threads" -p "$data/prosite_r14.dat" -o "$work/p.tsv" "$work/u.fa")
printf '\nPROSITE r14, 1282 patterns, uniprot_20k (%s residues)\n' "$res"
printf '%-28s %10s\n' tool seconds
printf '%-28s %10s\n' "probescan -t $threads" "$t"
if command -v fuzzpro >/dev/null; then
    awk '/^ID/ { pat = ($0 ~ /; PATTERN\./); pa = "" } /^AC/ { ac = $2; sub(/;$/, "", ac) }
         /^PA/ && pat { pa = pa substr($0, 6) } /^\/\// && pat && pa != "" { print pa; pat = 0 }' \
        "$data/prosite_r14.dat" > "$work/pa.txt"
    n=$(wc -l < "$work/pa.txt")
    head -50 "$work/pa.txt" > "$work/pa50.txt"
    s=$(date +%s.%N)
    while read -r pa; do fuzzpro -sequence "$work/u.fa" -pattern "$pa" -outfile "$work/f.out" -rformat excel -auto >/dev/null 2>&1; done < "$work/pa50.txt"
    e=$(date +%s.%N)
    printf '%-28s %10s\n' "fuzzpro (50 of $n, scaled)" "$(awk -v s="$s" -v e="$e" -v n="$n" 'BEGIN {printf "%.1f", (e - s) * n / 50}')"
fi

gzip -dc "$data/yeast_S288C_R64-1-1.bgzf.fa.gz" > "$work/y.fa"
python3 "$here/sample_probes.py" "$work/y.fa" 1000 20 --seed 11 > "$work/m.fa"
head -20 "$work/m.fa" > "$work/m10.fa"
printf '\n1,000 DNA 20-mers from yeast (12.2 Mbp), both strands\n'
printf '%-4s %16s %22s\n' D probescan_s "seqkit (10 probes, x100)"
for d in 0 1 2 3; do
    t=$(timeit "$bin" count -q -t "$threads" -m "$d" -p "$work/m.fa" -o "$work/d.tsv" "$work/y.fa")
    sk=n/a
    if command -v seqkit >/dev/null && [ "$d" -le 1 ]; then
        s=$(wall seqkit locate -j "$threads" -m "$d" -f "$work/m10.fa" "$work/y.fa")
        sk=$(awk -v s="$s" 'BEGIN {printf "%.1f", s * 100}')
    fi
    printf '%-4s %16s %22s\n' "$d" "$t" "$sk"
done
