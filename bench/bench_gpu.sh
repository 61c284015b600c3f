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

# probescan, GPU engine; the breakdown comes from -v and PS_GPU_STATS.
"$probescan" count -p "$work/probes.fa" "$big" -o "$work/gpu.tsv" -q --engine ${PS_BENCH_ENGINE:-gpu} > /dev/null 2>&1
ps_gpu=()
for r in 1 2 3; do
    ps_gpu+=("$( { time PS_GPU_STATS=1 "$probescan" count -v -q --engine ${PS_BENCH_ENGINE:-gpu} -p "$work/probes.fa" "$big" -o "$work/gpu.tsv" 2>"$work/gpu.log"; } 2>&1 )")
done
echo "# probescan --engine ${PS_BENCH_ENGINE:-gpu}, 3 runs: ${ps_gpu[*]} s"
sed 's/^/#   /' "$work/gpu.log"
ps_cpu=$( { time "$probescan" count -v -q --engine cpu -t "$threads" -p "$work/probes.fa" "$big" -o "$work/cpu.tsv" 2>"$work/cpu.log"; } 2>&1 )
echo "# probescan --engine cpu -t $threads: $ps_cpu s"
sed 's/^/#   /' "$work/cpu.log"
if cmp -s "$work/gpu.tsv" "$work/cpu.tsv"; then echo "# GPU and CPU tables identical"; else echo "# GPU and CPU tables DIFFER"; fi

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
    best_jf=$(printf '%s\n' "${jf[@]}" | sort -n | head -1)
    best_ps=$(printf '%s\n' "${ps_gpu[@]}" | sort -n | head -1)
    awk -v j="$best_jf" -v p="$best_ps" -v f="$floor" -v eng="${PS_BENCH_ENGINE:-gpu}" 'BEGIN {
        printf("\n| tool | best wall s | vs jellyfish |\n|---|---|---|\n")
        printf("| cat big.fa > /dev/null (floor) | %.2f | %.1fx |\n", f, j / f)
        printf("| probescan --engine %s | %.2f | %.1fx |\n", eng, p, j / p)
        printf("| jellyfish count -C -t N --if | %.2f | 1.0x |\n", j) }'
else
    echo "# jellyfish not installed: no comparison"
fi
