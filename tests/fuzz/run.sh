#!/usr/bin/env bash
# tests/fuzz/run.sh - builds the profile fuzz target (tests/fuzz/profile.c)
# with clang's libFuzzer, AddressSanitizer and UBSan, seeds its corpus with
# random profiles and proteins (tests/profgen.py; fresh seed, printed) and a
# profile whose search once never ended, and runs it for SECONDS seconds: a
# crash, a failed check, an input that runs over 60 s (a search without end;
# the slowest legal inputs take well under a second unsanitised) or over 2 GB
# fails.
#
#   bash tests/fuzz/run.sh SECONDS [BUILD_DIR]      (make fuzz FUZZ_SECONDS=...)
#
# Ends with "fuzz: 1 passed, 0 failed" (or 0 passed, 1 failed).
set -u
secs=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${2:-$top/build/fuzz}
cc=${FUZZ_CC:-clang}
mkdir -p "$out/corpus" "$out/crashes" || exit 2
command -v "$cc" > /dev/null || { echo "fuzz: $cc not found (Debian: clang)"; echo "fuzz: 0 passed, 0 failed, 1 skipped"; exit 0; }
"$cc" -O1 -g -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$top/src" -o "$out/profile_fuzz" "$here/profile.c" "$top/src/profile.c" "$top/src/profile_dp.c" \
    "$top/src/profile_lanes.c" -lm || { echo "fuzz: 0 passed, 1 failed (build)"; exit 1; }
seed=${PS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "fuzz: seed $seed (PS_SEED=$seed repeats the corpus)"
# One input an entry: the entry, "SQ", then one of the proteins.
python3 "$top/tests/profgen.py" "$seed" 40 40 "$out/seed.dat" "$out/seed.fa" || exit 2
awk -v dir="$out/corpus" 'NR == FNR { if (/^>/) n++; else p[n] = p[n] $0; next }
    /^ID /{ buf = ""; k++ } { buf = buf $0 "\n" }
    /^\/\//{ f = dir "/rnd" k; printf "%sSQ\n%s\n", buf, p[(k % n) + 1] > f; close(f) }' "$out/seed.fa" "$out/seed.dat"
printf '%s\nSQ\nG\n' "$(cat "$here/endless.dat")" > "$out/corpus/endless"
cd "$out" || exit 2
if ./profile_fuzz -max_total_time="$secs" -timeout=60 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
    -artifact_prefix="$out/crashes/" corpus > fuzz.log 2>&1; then
    grep -E '^stat::number_of_executed_units|^Done' fuzz.log | sed 's/^/fuzz: /'
    echo "fuzz: 1 passed, 0 failed"
else
    tail -40 fuzz.log
    echo "fuzz: what failed is in $out/crashes"
    echo "fuzz: 0 passed, 1 failed"
    exit 1
fi
