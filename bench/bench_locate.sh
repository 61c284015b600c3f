#!/usr/bin/env bash
# make bench (locate): where the probes are, beside seqkit locate, and
# beside probescan count on the same input (locate should cost little more
# while sites are sparse):
#   - 1,000 21-mers sampled from yeast over six copies of it (73 Mbp, about
#     human chrX): count, locate and seqkit locate --bed (20 probes, scaled);
#   - 1,000 20-mers within 2 mismatches on one yeast genome: locate and
#     seqkit locate -m 2 (10 probes, scaled).
# Whole processes are timed, each figure the median of RUNS runs.
# Environment: PS_DATA (real data folder), THREADS (default: all cores), RUNS (default 3).
set -euo pipefail
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
source "$here/common.sh"

header
[ -f "$data/yeast_S288C_R64-1-1.bgzf.fa.gz" ] || { echo "skip: yeast_S288C_R64-1-1.bgzf.fa.gz not in $data"; exit 0; }
gzip -dc "$data/yeast_S288C_R64-1-1.bgzf.fa.gz" > "$work/y.fa"
for i in 1 2 3 4 5 6; do sed "s/^>/>c${i}_/" "$work/y.fa"; done > "$work/y6.fa"
python3 "$here/sample_probes.py" "$work/y.fa" 1000 21 --seed 7 > "$work/p.fa"
head -40 "$work/p.fa" > "$work/p20.fa"

printf '\n1,000 21-mers, yeast x 6 (73 Mbp), both strands\n'
printf '%-34s %10s\n' tool seconds
printf '%-34s %10s\n' "probescan count -t $threads" "$(timeit "$bin" count -q -t "$threads" -p "$work/p.fa" "$work/y6.fa")"
printf '%-34s %10s\n' "probescan locate -t $threads" "$(timeit "$bin" locate -t "$threads" -p "$work/p.fa" "$work/y6.fa")"
"$bin" locate -t "$threads" -p "$work/p.fa" -o "$work/sites.bed" "$work/y6.fa"
printf '%-34s %10s\n' "  sites" "$(wc -l < "$work/sites.bed")"
if command -v seqkit >/dev/null; then
    s=$(wall seqkit locate -j "$threads" --bed -f "$work/p20.fa" "$work/y6.fa")
    printf '%-34s %10s\n' "seqkit locate (20 probes, x50)" "$(awk -v s="$s" 'BEGIN {printf "%.1f", s * 50}')"
fi

python3 "$here/sample_probes.py" "$work/y.fa" 1000 20 --seed 11 > "$work/m.fa"
head -20 "$work/m.fa" > "$work/m10.fa"
printf '\n1,000 20-mers within 2 mismatches, yeast (12.2 Mbp), both strands\n'
printf '%-34s %10s\n' tool seconds
printf '%-34s %10s\n' "probescan locate -m 2 -t $threads" "$(timeit "$bin" locate -t "$threads" -m 2 -p "$work/m.fa" "$work/y.fa")"
if command -v seqkit >/dev/null; then
    s=$(wall seqkit locate -j "$threads" -m 2 --bed -f "$work/m10.fa" "$work/y.fa")
    printf '%-34s %10s\n' "seqkit locate -m 2 (10 probes, x100)" "$(awk -v s="$s" 'BEGIN {printf "%.1f", s * 100}')"
fi
