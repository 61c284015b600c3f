#!/usr/bin/env bash
# bench_gpu.sh - GPU benchmarks: kernel times (GPU-resident), the ablation, and
# end to end from file to TSV beside jellyfish. Needs a CUDA GPU.
#
#   bash bench/bench_gpu.sh [PROBESCAN]
#
# Environment:
#   PS_DATA          folder holding yeast_S288C_R64-1-1.bgzf.fa.gz (default ../shared/data)
#   PS_BENCH_DIR     scratch folder for the generated ~1 GB FASTA (default bench/out)
#   PS_BENCH_COPIES  genome copies in the big FASTA (default 84: about 1.01 Gbp)
#   PS_BENCH_SKIP    "kernels" or "e2e" to skip that part
#   PS_BENCH_ENGINE  engine timed as the GPU run (default gpu; cpu tests this script without a GPU)
#   PS_BENCH_ARGS    extra arguments for build/bench/gpu_bench (e.g. "-L 28 -r 5")
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
probescan=${1:-$here/probescan}
data=${PS_DATA:-$here/../shared/data}
work=${PS_BENCH_DIR:-$here/bench/out}
copies=${PS_BENCH_COPIES:-84}
skip=${PS_BENCH_SKIP:-}
threads=$(nproc)

echo "# probescan GPU benchmarks, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# commit: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo 'none')$(git -C "$here" status --porcelain 2>/dev/null | grep -q . && echo ' (uncommitted changes)')"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/# gpu: /' || true

if [ "$skip" != kernels ]; then
    echo
    echo "## Kernels (GPU-resident, CUDA events)"
    # shellcheck disable=SC2086
    "$here/build/bench/gpu_bench" ${PS_BENCH_ARGS:-}
fi

[ "$skip" = e2e ] && exit 0
echo
echo "## End to end (whole process, file to TSV)"
yeast=$data/yeast_S288C_R64-1-1.bgzf.fa.gz
if [ ! -r "$yeast" ]; then
    echo "# skipped: $yeast not found (set PS_DATA)"
    exit 0
fi
mkdir -p "$work"
big=$work/big.fa
one=$work/yeast.fa
gzip -dc "$yeast" > "$one"
if [ ! -s "$big" ] || [ "$(cat "$work/big.copies" 2>/dev/null)" != "$copies" ]; then
    # Each copy's record names get a prefix, so that every record is distinct.
    : > "$big"
    for i in $(seq 1 "$copies"); do sed "s/^>/>c${i}_/" "$one" >> "$big"; done
    echo "$copies" > "$work/big.copies"
fi

# 10,000 probes of k = 21 cut at random positions of the genome (no N), seed fixed.
grep -v '^>' "$one" | tr -d '\n' | tr a-z A-Z > "$work/yeast.seq"
awk -v k=21 -v n=10000 -v seed=42 '
    { seq = $0 }
    END {
        srand(seed); L = length(seq); got = 0
        while (got < n) {
            p = 1 + int(rand() * (L - k)); s = substr(seq, p, k)
            if (s ~ /^[ACGT]+$/) { got++; printf(">p%d\n%s\n", got, s) }
        }
    }' "$work/yeast.seq" > "$work/probes.fa"
bases=$(wc -c < "$work/yeast.seq")
echo "# input: $copies copies of the yeast genome: $(( bases * copies )) bases, $(stat -c %s "$big") bytes"

TIMEFORMAT=%R
cat "$big" > /dev/null
floor=$( { time cat "$big" > /dev/null; } 2>&1 )
echo "# floor: cat big.fa > /dev/null: $floor s (page cache warm)"

# probescan: the default engine (the CPU scans while the GPU starts, then the
# GPU), the GPU engine alone, and the CPU engine alone; -v and PS_GPU_STATS
# give the breakdown.
time3() { # time3 LOG ARGS...: three timed runs after one warm-up
    local log=$1; shift
    "$probescan" count -q "$@" -p "$work/probes.fa" "$big" -o "$work/t.tsv" > /dev/null 2>&1
    local t=()
    for r in 1 2 3; do
        t+=("$( { time PS_GPU_STATS=1 "$probescan" count -v -q "$@" -p "$work/probes.fa" "$big" -o "$work/t.tsv" 2>"$log"; } 2>&1 )")
    done
    echo "${t[*]}"
}
ps_auto=$(time3 "$work/auto.log"); cp "$work/t.tsv" "$work/auto.tsv"
echo "# probescan (default engine), 3 runs: $ps_auto s"
sed 's/^/#   /' "$work/auto.log"
ps_gpu=$(time3 "$work/gpu.log" --engine ${PS_BENCH_ENGINE:-gpu}); cp "$work/t.tsv" "$work/gpu.tsv"
echo "# probescan --engine ${PS_BENCH_ENGINE:-gpu}, 3 runs: $ps_gpu s"
sed 's/^/#   /' "$work/gpu.log"
ps_cpu=$(time3 "$work/cpu.log" --engine cpu -t "$threads"); cp "$work/t.tsv" "$work/cpu.tsv"
echo "# probescan --engine cpu -t $threads, 3 runs: $ps_cpu s"
sed 's/^/#   /' "$work/cpu.log"
if cmp -s "$work/gpu.tsv" "$work/cpu.tsv" && cmp -s "$work/auto.tsv" "$work/cpu.tsv"; then
    echo "# default, GPU and CPU tables identical"
else
    echo "# default, GPU and CPU tables DIFFER"
fi

jf=none
if command -v jellyfish > /dev/null; then
    rm -f "$work/jf.db"
    jf=()
    for r in 1 2; do
        rm -f "$work/jf.db"
        jf+=("$( { time jellyfish count -m 21 -C -t "$threads" -s 1M --if "$work/probes.fa" -o "$work/jf.db" "$big"; } 2>&1 )")
    done
    echo "# jellyfish count -m 21 -C -t $threads -s 1M --if probes.fa, 2 runs: ${jf[*]} s"
    # Odd k: no palindromes, so probescan's count (forward + reverse) is the canonical count.
    jellyfish dump -c "$work/jf.db" > "$work/jf.txt"
    awk 'BEGIN { c["A"]="T"; c["C"]="G"; c["G"]="C"; c["T"]="A" }
         NR == FNR { jf[$1] = $2; next }
         FNR == 1 { next }
         { s = $2; r = ""; for (i = length(s); i > 0; i--) r = r c[substr(s, i, 1)]
           k = s < r ? s : r; n++; if ((k in jf ? jf[k] : 0) != $3) bad++ }
         END { printf("# probescan vs jellyfish counts: %d of %d probes differ\n", bad, n) }' \
        "$work/jf.txt" "$work/gpu.tsv"
    best() { printf '%s\n' "$@" | tr ' ' '\n' | sort -n | head -1; }
    best_jf=$(best "${jf[@]}")
    awk -v j="$best_jf" -v a="$(best $ps_auto)" -v g="$(best $ps_gpu)" -v c="$(best $ps_cpu)" -v f="$floor" \
        -v eng="${PS_BENCH_ENGINE:-gpu}" -v t="$threads" 'BEGIN {
        printf("\n| tool | best wall s | vs jellyfish |\n|---|---|---|\n")
        printf("| cat big.fa > /dev/null (floor) | %.2f | %.1fx |\n", f, j / f)
        printf("| probescan (default engine: GPU, CPU while it starts) | %.2f | %.1fx |\n", a, j / a)
        printf("| probescan --engine %s | %.2f | %.1fx |\n", eng, g, j / g)
        printf("| probescan --engine cpu -t %d | %.2f | %.1fx |\n", t, c, j / c)
        printf("| jellyfish count -C -t %d --if | %.2f | 1.0x |\n", t, j) }'
else
    echo "# jellyfish not installed: no comparison"
fi
