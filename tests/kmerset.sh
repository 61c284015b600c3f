#!/usr/bin/env bash
# kmerset.sh - the k-mer set index (--index kmer-set) against the automaton
# on random DNA (every table shape, both strand modes, thread counts), the
# automatic choice between them, its refusals, and its counts against
# jellyfish on a real genome (PS_DATA's E. coli, else the copy in fasta/;
# jellyfish on the PATH); the README's memory bound for many probes, random
# and distinct ones sampled from that genome.
#
#   bash tests/kmerset.sh ./probescan      (PS_SEED=N repeats a run)
#
# Ends with "kmerset.sh: N passed, N failed, N skipped".
set -u
export LC_ALL=C
bin=${1:-./probescan}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
[ -x "$bin" ] || { echo "kmerset.sh: $bin is not an executable (build it with make)" >&2; exit 2; }
DATA=${PS_DATA:-}
case $DATA in "" | /*) ;; *) DATA=$PWD/$DATA ;; esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/probescan-kmerset.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2

passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }
skip() { skipped=$((skipped + $1)); echo "kmerset.sh: $1 skipped ($2: $3)"; }

seed=${PS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "kmerset.sh: seed $seed"

# Random DNA: records of a low-entropy alphabet (so short probes hit often),
# N runs, lowercase and U; probes of one k from 1 to 32 per set, taken from
# the text or random, with duplicates and (even k) palindromes.
gen() { # gen SEED K NPROBES
    awk -v seed="$1" -v k="$2" -v np="$3" 'BEGIN {
        srand(seed); split("ACGT", b, ""); split("acgu", lb, "")
        for (f = 1; f <= 2; f++) {
            out = "in" f ".fa"; all[f] = ""
            nrec = 1 + int(rand() * 6)
            for (r = 1; r <= nrec; r++) {
                len = int(rand() * 4000); s = ""
                for (i = 0; i < len; i++) {
                    x = rand()
                    if (x < 0.01) { n = 1 + int(rand() * 40); for (j = 0; j < n; j++) s = s "N"; continue }
                    m = rand() < 0.5 ? 2 : 4; c = 1 + int(rand() * m) % m
                    s = s (rand() < 0.05 ? lb[c] : b[c])
                }
                printf(">f%dr%d some description\n", f, r) > out
                for (i = 1; i <= length(s); i += 60) print substr(s, i, 60) > out
                text = text s "#"
            }
            close(out)
        }
        T = toupper(text); gsub(/U/, "T", T)
        for (p = 0; p < np; p++) {
            x = rand(); seq = ""
            if (x < 0.5 && length(T) > k) {
                for (t = 0; t < 20; t++) {
                    st = 1 + int(rand() * (length(T) - k)); seq = substr(T, st, k)
                    if (seq ~ /^[ACGT]+$/) break
                    seq = ""
                }
            }
            if (seq == "" && x < 0.6 && k % 2 == 0) {
                for (i = 0; i < k / 2; i++) seq = seq b[1 + int(rand() * 4) % 4]
                rc = ""; for (i = k / 2; i >= 1; i--) { c = substr(seq, i, 1); rc = rc (c == "A" ? "T" : c == "C" ? "G" : c == "G" ? "C" : "A") }
                seq = seq rc
            }
            if (seq == "" && x < 0.7 && p > 0) seq = last
            if (seq == "") for (i = 0; i < k; i++) { m = rand() < 0.5 ? 2 : 4; seq = seq b[1 + int(rand() * m) % m] }
            printf("p%d\t%s\n", p, seq) > "probes.tsv"; last = seq
        }
        close("probes.tsv")
    }'
}

cases=0
for c in $(seq 1 12); do
    k=$(( c <= 2 ? c : c == 3 ? 32 : 1 + (seed + c * 7919) % 32 ))
    np=$(( 1 + (seed / (c + 1)) % 400 ))
    rm -f in1.fa in2.fa probes.tsv
    gen $((seed + c)) "$k" "$np"
    for args in "" "-s forward" "--by-file" "--by-record" "-t 1" "-t 3 -s forward --by-record"; do
        # shellcheck disable=SC2086
        "$bin" count -q $args --index automaton -p probes.tsv -o a.tsv in1.fa in2.fa 2> a.err
        ra=$?
        # shellcheck disable=SC2086
        "$bin" count -q $args --index kmer-set -p probes.tsv -o k.tsv --stats k.json in1.fa in2.fa 2> k.err
        rk=$?
        cases=$((cases + 1))
        if [ $ra -ne 0 ] || [ $rk -ne 0 ]; then bad "k=$k probes=$np '$args': exit $ra/$rk: $(cat a.err k.err)"
        elif ! cmp -s a.tsv k.tsv; then bad "k=$k probes=$np '$args': the k-mer set's table differs (seed $seed)"; diff a.tsv k.tsv | head -4
        elif ! grep -q '"index": "kmer_set"' k.json; then bad "k=$k '$args': --stats does not say kmer_set"
        else ok; fi
    done
done
echo "kmerset.sh: $cases random tables the same from the k-mer set and the automaton"

# The automatic choice: from 12,000 strings (probes x strands) on.
awk -v seed="$seed" 'BEGIN { srand(seed); split("ACGT", b, "")
    for (p = 0; p < 6000; p++) { s = ""; for (i = 0; i < 25; i++) s = s b[1 + int(rand() * 4) % 4]; print "q" p "\t" s } }' > many.tsv
head -n 5999 many.tsv > fewer.tsv
choice() { # choice DESC WANT ARGS...
    local desc=$1 want=$2
    shift 2
    if "$bin" count -q --stats c.json -o c.tsv "$@" > /dev/null 2> c.err && grep -q "\"index\": \"$want\"" c.json; then ok
    else bad "$desc: index is not $want ($(grep '"index"' c.json 2> /dev/null) $(cat c.err))"; fi
}
choice "6,000 probes, both strands" kmer_set -p many.tsv in1.fa
choice "5,999 probes, both strands" automaton -p fewer.tsv in1.fa
choice "6,000 probes, forward" automaton -s forward -p many.tsv in1.fa
choice "--index automaton" automaton --index automaton -p many.tsv in1.fa
# --kernel names the automaton's GPU kernels, which the k-mer set does not
# run; a build without CUDA takes no --kernel at all.
if "$bin" count -q --kernel best -p fewer.tsv -o /dev/null in1.fa 2> kb.err; then has_kernels=1
elif grep -q "built without CUDA" kb.err; then has_kernels=0
else has_kernels=1; bad "--kernel best: $(cat kb.err)"; fi
if [ "$has_kernels" = 1 ]; then
    choice "--kernel leaf (the automaton's)" automaton --kernel leaf -p many.tsv in1.fa
    choice "--kernel best" kmer_set --kernel best -p many.tsv in1.fa
    # No GPU kernel runs on the CPU engine: --kernel changes nothing there.
    choice "--engine cpu --kernel leaf" kmer_set --engine cpu --kernel leaf -p many.tsv in1.fa
    choice "--engine cpu --index kmer-set --kernel leaf" kmer_set --engine cpu --index kmer-set --kernel leaf -p many.tsv in1.fa
else
    skip 4 build "built without CUDA: --kernel and the index"
fi
if "$bin" count -q -v -o c.tsv -p many.tsv in1.fa 2> c.err && grep -q "k-mer set (12000 strings of k = 25)" c.err; then ok
else bad "-v does not say why the k-mer set was chosen: $(cat c.err)"; fi

# Many probes, loaded, built and written on several threads: 200,000 31-mers
# (8 MB of FASTA, one in twenty a repeat) give the same table on 1 and 3
# threads, and the peak memory of the 3-thread run stays within the README's
# bounds over a run of one probe: twice the probe file and 48 bytes a probe
# while loading, 78 bytes a probe for the k-mer set and its build, (T + 1)
# counts of 8 bytes a leaf (both strands: 2 a probe), the probes kept (the
# file again, 24 + k bytes a probe) and 2 MB of rows a thread.
awk -v seed="$seed" 'BEGIN { srand(seed + 1); split("ACGT", b, "")
    for (p = 0; p < 200000; p++) {
        if (p && rand() < 0.05) s = last
        else { s = ""; for (i = 0; i < 31; i++) s = s b[1 + int(rand() * 4) % 4] }
        print ">m" p; print s; last = s } }' > mass.fa
head -n 2 mass.fa > one.fa
# A run's peak memory, from its --stats.
peak() { sed -n 's/.*"peak_memory_bytes": *\([0-9]*\).*/\1/p' "$1"; }
if "$bin" count -q -t 1 -o m1.tsv -p mass.fa in1.fa 2> m.err && "$bin" count -q -t 3 --stats m3.json -o m3.tsv -p mass.fa in1.fa 2>> m.err &&
    [ "$(wc -l < m1.tsv)" = 200001 ] && cmp -s m1.tsv m3.tsv; then ok
else bad "200,000 probes: the tables on 1 and 3 threads differ or fail: $(head -2 m.err)"; fi
if grep -qa __asan_init "$bin"; then
    skip 1 sanitizer "shadow memory counts in a sanitizer build: memory bound"
elif "$bin" count -q -t 3 --stats one.json -o one.tsv -p one.fa in1.fa 2> m.err; then
    file=$(wc -c < mass.fa) n=200000 t=3
    bound=$(( 2 * file + 48 * n + 78 * n + (t + 1) * 2 * n * 8 + file + (24 + 31) * n + t * 2 * 1048576 ))
    used=$(( $(peak m3.json) - $(peak one.json) ))
    if [ "$used" -le "$bound" ]; then ok
    else bad "200,000 probes: $used bytes over a one-probe run, the README's bound is $bound"; fi
    echo "kmerset.sh: 200,000 probes took $((used / 1048576)) MB over a one-probe run (bound $((bound / 1048576)) MB)"
else bad "one probe: $(cat m.err)"; fi

# A million 31-mers one a line (names that are their sequences): the
# README's bound for such files, the k-mer set's table (as -v gives it)
# and 128 bytes a probe more over a one-probe run on 2 threads (the
# sequences' text and, while it is joined, a thread's part of it again,
# their pointers, the filter, leaves, the engine's and the run's counts;
# the codes freed before the table is built).
# over_one NAME PROBES INPUT: PROBES counted over INPUT (-v, 2 threads) into
# NAME.tsv, and their first alone; sets used (the first run's peak over the
# second's, bytes), bound (the README's: the table and 128 bytes a probe)
# and table (empty where -v gave no size). Non-zero where a run failed or
# the table lacks a row a probe; NAME.err holds their stderr.
over_one() {
    local name=$1 probes=$2 input=$3 n
    n=$(wc -l < "$probes")
    head -n 1 "$probes" > "$name.one"
    "$bin" count -v -q -t 2 --stats "$name.json" -o "$name.tsv" -p "$probes" "$input" 2> "$name.err" &&
        "$bin" count -q -t 2 --stats "$name.one.json" -o "$name.one.tsv" -p "$name.one" "$input" 2>> "$name.err" &&
        [ "$(wc -l < "$name.tsv")" = $((n + 1)) ] || return 1
    table=$(sed -n 's/.* leaves, \([0-9.]*\) MB table.*/\1/p' "$name.err" | awk '{ printf "%d", $1 * 1000000 }')
    used=$(( $(peak "$name.json") - $(peak "$name.one.json") )) bound=$(( ${table:-0} + 128 * n ))
}
if grep -qa __asan_init "$bin"; then
    skip 1 sanitizer "shadow memory counts in a sanitizer build: a million probes"
else
    awk -v seed="$seed" 'BEGIN { srand(seed + 2); split("A C G T", b, " ");
        for (p = 0; p < 1000000; p++) { s = ""; for (i = 0; i < 31; i++) s = s b[1 + int(rand() * 4) % 4]; print s } }' > million.txt
    if over_one mm million.txt in1.fa; then
        if [ -z "$table" ]; then bad "a million 31-mers: -v gave no table size: $(head -3 mm.err)"
        elif [ "$used" -le "$bound" ]; then ok
        else bad "a million 31-mers one a line: $used bytes over a one-probe run, the README's bound is $bound"; fi
        echo "kmerset.sh: a million 31-mers one a line took $((used / 1048576)) MB over a one-probe run (bound $((bound / 1048576)) MB)"
        # Their names are their sequences, as written.
        if cut -f1,2 mm.tsv | tail -n +2 | awk -F '\t' '$1 != $2 { bad = 1 } END { exit bad }'; then ok
        else bad "a million 31-mers: a name that is not its sequence"; fi
    else bad "a million 31-mers: $(head -2 mm.err)"; fi
fi

# A million distinct 31-mers sampled from a real genome (E. coli, below),
# each found in it: the same bound as above, with every count touched (the
# run's array and the engine's), names that are their sequences.
ecoli=$DATA/ecoli_K12_MG1655.fa.gz
[ -n "$DATA" ] && [ -f "$ecoli" ] || ecoli=$here/../fasta/ecoli_K12_MG1655.fa.gz
gzip -dc "$ecoli" > ecoli.fa
# The genome as one line: awk then takes it whole, with no string grown
# line by line.
grep -v '^>' ecoli.fa | tr -d '\n' | tr acgt ACGT > ecoli.seq
if grep -qa __asan_init "$bin"; then
    skip 1 sanitizer "shadow memory counts in a sanitizer build: a million distinct probes"
else
    awk -v seed="$seed" 'BEGIN { srand(seed + 3) } { g = $0 }
        END { L = length(g) - 30
              for (n = 0; n < 1000000;) {
                  s = substr(g, 1 + int(rand() * L), 31)
                  if (s in seen || s !~ /^[ACGT]+$/) continue
                  seen[s] = 1; print s; n++ } }' ecoli.seq > distinct.txt
    if over_one dd distinct.txt ecoli.fa; then
        missing=$(awk -F '\t' 'NR > 1 && $3 == 0' dd.tsv | wc -l)
        if [ -z "$table" ]; then bad "a million distinct 31-mers: -v gave no table size: $(head -3 dd.err)"
        elif [ "$missing" != 0 ]; then bad "a million 31-mers taken from E. coli: $missing not found in it"
        elif [ "$used" -le "$bound" ]; then ok
        else bad "a million distinct 31-mers from E. coli: $used bytes over a one-probe run, the README's bound is $bound"; fi
        echo "kmerset.sh: a million distinct 31-mers from E. coli, each found, took $((used / 1048576)) MB over a one-probe run (bound $((bound / 1048576)) MB)"
    else bad "a million distinct 31-mers: $(head -2 dd.err)"; fi
fi

# Refusals: one line, no output file.
refuse() { # refuse DESC MESSAGE ARGS...
    local desc=$1 msg=$2
    shift 2
    rm -f r.tsv
    if "$bin" count -q -o r.tsv "$@" > /dev/null 2> r.err; then bad "$desc: accepted"
    elif ! grep -q -- "$msg" r.err || [ "$(wc -l < r.err)" != 1 ] || [ -e r.tsv ]; then bad "$desc: $(cat r.err)"
    else ok; fi
}
printf 'p1\tMKVLAW\n' > protein.tsv
printf 'p1\t%s\n' ACGTACGTACGTACGTACGTACGTACGTACGTA > k33.tsv
refuse "protein probes" "--index kmer-set takes DNA probes of length 1 to 32, not protein of length 6" --index kmer-set -p protein.tsv in1.fa
refuse "k = 33" "not dna of length 33" --index kmer-set -p k33.tsv in1.fa
if [ "$has_kernels" = 1 ]; then
    refuse "with another GPU kernel" "--kernel leaf walks the automaton; --index kmer-set has a GPU kernel of its own" --index kmer-set --kernel leaf -p many.tsv in1.fa
else
    skip 1 build "built without CUDA: --kernel with --index kmer-set"
fi
refuse "a bad --index" "--index must be auto, automaton or kmer-set, not 'hash'" --index hash -p many.tsv in1.fa

# Against jellyfish on a real genome: 31-mers taken from it and random ones.
# Both strands summed is jellyfish's canonical count (-C); k is odd, so no
# 31-mer is its own reverse complement.
# The genome (ecoli.fa, ecoli.seq) as above.
if ! command -v jellyfish > /dev/null 2>&1; then skip 1 peer "jellyfish is not installed: k-mer set against jellyfish"
else
    awk -v seed="$seed" 'BEGIN { srand(seed); split("ACGT", b, "") }
        { g = $0 }
        END {
            for (p = 0; p < 20000; p++) {
                if (p % 10 == 9) { s = ""; for (i = 0; i < 31; i++) s = s b[1 + int(rand() * 4) % 4] }
                else s = substr(g, 1 + int(rand() * (length(g) - 31)), 31)
                if (s !~ /^[ACGT]+$/) continue
                print ">j" p > "jp.fa"; print s > "jp.fa"; print "j" p "\t" s > "jp.tsv"
            }
        }' ecoli.seq
    if ! jellyfish count -m 31 -s 1M -C -t 2 --if jp.fa -o jf.jf ecoli.fa 2> jf.err || ! jellyfish dump -c -t jf.jf > jf.tsv 2>> jf.err; then
        bad "jellyfish failed: $(head -3 jf.err)"
    elif ! "$bin" count -q --index kmer-set -p jp.tsv -o ps.tsv ecoli.fa 2> ps.err; then
        bad "probescan failed on the E. coli genome: $(cat ps.err)"
    else
        # probe -> canonical k-mer -> jellyfish's count; probescan's count column.
        awk -F '\t' 'function rc(s,  r, i, c) { r = ""; for (i = length(s); i >= 1; i--) { c = substr(s, i, 1)
                        r = r (c == "A" ? "T" : c == "C" ? "G" : c == "G" ? "C" : "A") } return r }
            FNR == NR { jf[$1] = $2; next }
            FNR == 1 { next }
            { s = $2; r = rc(s); c = s < r ? s : r; n = (c in jf) ? jf[c] : 0
              if (n != $3) { print $1, s, "probescan " $3, "jellyfish " n; bad++ } ; m++; hits += $3 > 0 }
            END { print m + 0, hits + 0, bad + 0 > "cmp.sum" }' jf.tsv ps.tsv > cmp.bad
        read -r m hits nbad < cmp.sum
        if [ "$nbad" = 0 ] && [ "$m" -ge 19000 ] && [ "$hits" -ge 17000 ]; then
            ok; echo "kmerset.sh: $m probes on E. coli, $hits found, every count equal to jellyfish's"
        else bad "against jellyfish: $nbad of $m probes differ ($hits found): $(head -3 cmp.bad)"; fi
    fi
fi

echo "kmerset.sh: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
