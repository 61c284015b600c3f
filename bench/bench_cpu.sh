#!/usr/bin/env bash
# make bench: CPU engine throughput on the real genomes with 1,000 and 10,000
# probes of k = 21 sampled from each genome, beside jellyfish (if installed)
# counting the same probes (--if) on the same plain FASTA with the same threads.
# The genomes are small (runs of tens of milliseconds, where start-up weighs),
# so a third input, eight copies of the yeast genome (97 Mbp), shows the
# steady rate.
# Whole processes are timed; each figure is the median of RUNS runs.
# Environment: PS_DATA (real data folder), THREADS (default: all cores), RUNS (default 5).
set -euo pipefail
runs=${RUNS:-5}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
source "$here/common.sh"

header
printf '%-8s %7s %10s %12s %14s %12s %8s\n' genome probes Mbases probescan_s probescan_Mb/s jellyfish_s speedup
for g in ecoli_K12_MG1655.fa.gz yeast_S288C_R64-1-1.bgzf.fa.gz yeast_S288C_R64-1-1.bgzf.fa.gz:8; do
    copies=${g##*:}; [ "$copies" = "$g" ] && copies=1
    g=${g%%:*}
    [ -f "$data/$g" ] || { echo "skip $g: not in $data"; continue; }
    name=${g%%_*}; [ "$copies" = 1 ] || name="${name}x$copies"
    : > "$work/$name.fa"
    for i in $(seq "$copies"); do gzip -dc "$data/$g" | sed "s/^>/>c${i}_/" >> "$work/$name.fa"; done
    mb=$(grep -v '>' "$work/$name.fa" | tr -d '\n' | wc -c | awk '{printf "%.2f", $1 / 1e6}')
    for n in 1000 10000; do
        python3 "$here/sample_probes.py" "$work/$name.fa" "$n" 21 --seed 7 > "$work/p$n.fa"
        t=$(timeit "$bin" count -q -t "$threads" --engine cpu -p "$work/p$n.fa" -o "$work/out.tsv" "$work/$name.fa")
        rate=$(awk -v m="$mb" -v t="$t" 'BEGIN {printf "%.0f", m / t}')
        if command -v jellyfish >/dev/null; then
            j=$(timeit jellyfish count -m 21 -C -t "$threads" -s 10M --if "$work/p$n.fa" -o "$work/jf.out" "$work/$name.fa")
            sp=$(awk -v j="$j" -v t="$t" 'BEGIN {printf "%.1fx", j / t}')
        else
            j=n/a; sp=n/a
        fi
        printf '%-8s %7s %10s %12s %14s %12s %8s\n' "$name" "$n" "$mb" "$t" "$rate" "$j" "$sp"
    done
done

# Many probes: k = 31 sampled from six yeast genomes (72 Mbp, about human
# chrX), where the automaton grows by up to k states a probe and the k-mer
# set takes over (--index auto); both indexes beside jellyfish, with peak
# memory. Every table is compared with the automaton's.
g=$data/yeast_S288C_R64-1-1.bgzf.fa.gz
if [ -f "$g" ]; then
    : > "$work/y6.fa"
    for i in 1 2 3 4 5 6; do gzip -dc "$g" | sed "s/^>/>c${i}_/" >> "$work/y6.fa"; done
    peak() { /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>&1; awk '{printf "%.0f", $1 / 1024}' "$work/rss"; }
    echo
    printf '%-9s %8s %16s %10s %14s %10s %12s %10s\n' input probes automaton_s auto_s index jellyfish_s auto_MB jf_MB
    for n in 100000 1000000; do
        python3 "$here/sample_probes.py" "$work/y6.fa" "$n" 31 --seed 7 > "$work/q$n.fa"
        a=$(timeit "$bin" count -q -t "$threads" --engine cpu --index automaton -p "$work/q$n.fa" -o "$work/a.tsv" "$work/y6.fa")
        d=$(timeit "$bin" count -q -t "$threads" --stats "$work/s.json" -p "$work/q$n.fa" -o "$work/d.tsv" "$work/y6.fa")
        cmp -s "$work/a.tsv" "$work/d.tsv" || { echo "tables differ at N = $n" >&2; exit 1; }
        ix=$(sed -n 's/.*"index": "\([a-z_]*\)".*/\1/p' "$work/s.json")
        dm=$(peak "$bin" count -q -t "$threads" -p "$work/q$n.fa" -o "$work/d.tsv" "$work/y6.fa")
        if command -v jellyfish >/dev/null; then
            j=$(timeit jellyfish count -m 31 -C -t "$threads" -s 10M --if "$work/q$n.fa" -o "$work/jf.out" "$work/y6.fa")
            jm=$(peak jellyfish count -m 31 -C -t "$threads" -s 10M --if "$work/q$n.fa" -o "$work/jf.out" "$work/y6.fa")
        else
            j=n/a; jm=n/a
        fi
        printf '%-9s %8s %16s %10s %14s %10s %12s %10s\n' yeastx6 "$n" "$a" "$d" "$ix" "$j" "$dm" "$jm"
    done
fi
