#!/usr/bin/env bash
# Ten million distinct probes against their genome: N (default 10^7)
# distinct 31-mers sampled from GENOME (plain or gzip FASTA, e.g. human
# chrX) counted over that genome by probescan (the default engine, and
# --engine cpu) and by jellyfish (count -m 31 -C --if the probes, then dump
# -c -t: each probe's canonical k-mer and its count, the same answer as
# probescan's total column); whole processes, the median of RUNS runs, and
# each one's peak memory (/usr/bin/time). probescan's tables are compared
# (default against --engine cpu) and its totals against jellyfish's.
#   GENOME=chrX.fa.gz bash bench/bench_distinct.sh [./probescan]
# Environment: GENOME (required), N, THREADS (default: all cores), RUNS (default 3).
set -euo pipefail
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
source "$here/common.sh"
genome=${GENOME:?GENOME=path of a FASTA genome (plain or gzip)}
n=${N:-10000000}
[ -f "$genome" ] || { echo "bench_distinct.sh: $genome: no such file" >&2; exit 2; }

gzip -dcf "$genome" > "$work/g.fa"
python3 "$here/sample_probes.py" "$work/g.fa" "$n" 31 --seed 7 --distinct > "$work/p.fa"
mb=$(grep -v '>' "$work/g.fa" | tr -d '\n' | wc -c | awk '{printf "%.1f", $1 / 1e6}')
peak() { /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>&1; awk '{printf "%.0f", $1 / 1024}' "$work/rss"; }

header
echo "$n distinct 31-mers from $(basename "$genome") ($mb Mbp), counted over it; median of $runs runs"
printf '%-44s %10s %10s %8s\n' tool seconds peak_MB vs_jf
ps_default=$(timeit "$bin" count -q -t "$threads" -p "$work/p.fa" -o "$work/d.tsv" "$work/g.fa")
m_default=$(peak "$bin" count -q -t "$threads" -p "$work/p.fa" -o "$work/d.tsv" "$work/g.fa")
ps_cpu=$(timeit "$bin" count -q -t "$threads" --engine cpu -p "$work/p.fa" -o "$work/c.tsv" "$work/g.fa")
m_cpu=$(peak "$bin" count -q -t "$threads" --engine cpu -p "$work/p.fa" -o "$work/c.tsv" "$work/g.fa")
cmp -s "$work/d.tsv" "$work/c.tsv" || { echo "the default engine's table differs from --engine cpu's" >&2; exit 1; }
if command -v jellyfish > /dev/null; then
    # Both steps give the answer: the counts, then each probe's k-mer and count as text.
    jf() {
        jellyfish count -m 31 -C -t "$threads" -s "$n" --if "$work/p.fa" -o "$work/jf.db" "$work/g.fa" &&
            jellyfish dump -c -t "$work/jf.db" > "$work/jf.tsv"
    }
    export -f jf
    export work threads n
    j=$(timeit bash -c jf)
    jm=$(peak jellyfish count -m 31 -C -t "$threads" -s "$n" --if "$work/p.fa" -o "$work/jf.db" "$work/g.fa")
    jf
    # Each probe's total against jellyfish's count of its canonical k-mer.
    awk -F '\t' 'function rc(s,  r, i, c) { r = ""; for (i = length(s); i >= 1; i--) { c = substr(s, i, 1)
                    r = r (c == "A" ? "T" : c == "C" ? "G" : c == "G" ? "C" : "A") } return r }
        FNR == NR { jf[$1] = $2; next }
        FNR == 1 { next }
        { s = $2; r = rc(s); c = s < r ? s : r; if (((c in jf) ? jf[c] : 0) != $3) bad++ }
        END { if (bad) { print bad " probes differ from jellyfish" > "/dev/stderr"; exit 1 } }' "$work/jf.tsv" "$work/c.tsv"
else
    j=n/a; jm=n/a
fi
vs() { awk -v j="$j" -v t="$1" 'BEGIN { if (j == "n/a") print "n/a"; else printf "%.1fx\n", j / t }'; }
printf '%-44s %10s %10s %8s\n' "probescan count (default engine) -t $threads" "$ps_default" "$m_default" "$(vs "$ps_default")"
printf '%-44s %10s %10s %8s\n' "probescan count --engine cpu -t $threads" "$ps_cpu" "$m_cpu" "$(vs "$ps_cpu")"
printf '%-44s %10s %10s %8s\n' "jellyfish count -C -t $threads --if + dump" "$j" "$jm" 1.0x
