#!/usr/bin/env bash
# Scatter/gather end to end: the merge of tables counted on chunks equals the
# table of one run over the whole input, byte for byte, for all three shapes:
#   totals     inputs split into chunks (FASTA per record, FASTQ by reads)
#   --by-file  chunk files named after their sample, so columns sum
#   --by-record records in order; one long record split into overlapping
#              pieces (k-1 bases shared, so every window lies in exactly one
#              piece) is joined back by merge --split-records; mates of one
#              name dealt to two chunks stay two records (--whole-records)
# First on random sequence made here, then on the real data in $PS_DATA
# (default ../shared/data; each part skipped, naming the file, without its
# file; the E. coli genome bundled in fasta/ where PS_DATA lacks it).
# Usage: tests/merge.sh [PROBESCAN_BINARY]
set -euo pipefail

bin=${1:-./probescan}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
data=${PS_DATA:-$here/../../shared/data}
[ -x "$bin" ] || { echo "merge.sh: $bin is not an executable (build it with make)" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/probescan-merge.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
checks=0
skipped=0

same() { # what expected got
    checks=$((checks + 1))
    if cmp -s "$2" "$3"; then
        echo "ok: $1"
    else
        echo "FAIL: $1: merge differs from the single run:" >&2
        diff "$2" "$3" | head -n 10 >&2 || true
        fails=$((fails + 1))
    fi
}

# split_fasta IN DIR NAME: one chunk per record, DIR/<nnnn>/NAME.fa
split_fasta() {
    awk -v dir="$2" -v name="$3" '
        /^>/ { if (out) close(out); n++; d = sprintf("%s/%04d", dir, n); system("mkdir -p " d); out = d "/" name ".fa" }
        { print > out }' "$1"
}

# split_fastq IN DIR NAME PARTS: four-line records dealt out round robin
split_fastq() {
    awk -v dir="$2" -v name="$3" -v parts="$4" '
        BEGIN { for (i = 0; i < parts; i++) system(sprintf("mkdir -p %s/%04d", dir, i)) }
        { print > sprintf("%s/%04d/%s.fq", dir, int((NR - 1) / 4) % parts, name) }' "$1"
}

# split_record IN DIR NAME PIECES K: a one-record FASTA cut into PIECES pieces
# that overlap by K-1 bases, each keeping the record's header.
split_record() {
    local hdr seq len step i start end
    hdr=$(head -n 1 "$1")
    seq=$2.seq
    grep -v '^>' "$1" | tr -d '\n' > "$seq"
    len=$(wc -c < "$seq")
    step=$(((len + $4 - 1) / $4))
    for ((i = 0; i < $4; i++)); do
        start=$((i * step))
        end=$((start + step + $5 - 1))
        [ "$end" -le "$len" ] || end=$len
        mkdir -p "$(printf '%s/%04d' "$2" "$i")"
        { printf '%s\n' "$hdr"; dd if="$seq" bs=1M iflag=skip_bytes,count_bytes skip="$start" count=$((end - start)) status=none; printf '\n'; } \
            > "$(printf '%s/%04d/%s.fa' "$2" "$i" "$3")"
    done
    rm -f "$seq"
}

# check_chunks TAG PROBES OPTIONS WHOLE... -- CHUNK...: count the whole inputs
# in one run and each chunk alone, merge the chunk tables (with the merge
# options in $mopts), compare.
mopts=
check_chunks() {
    local tag=$1 probes=$2 opts=$3
    shift 3
    local whole=() chunks=()
    while [ "$1" != -- ]; do whole+=("$1"); shift; done
    shift
    chunks=("$@")
    # shellcheck disable=SC2086
    "$bin" count $opts -t 2 -p "$probes" -o "$tmp/whole.tsv" "${whole[@]}"
    local tables=() i=0
    for c in "${chunks[@]}"; do
        i=$((i + 1))
        # shellcheck disable=SC2086
        "$bin" count $opts -t 2 -p "$probes" -o "$tmp/chunk.$i.tsv" "$c"
        tables+=("$tmp/chunk.$i.tsv")
    done
    # shellcheck disable=SC2086
    "$bin" merge $mopts -p "$probes" -o "$tmp/merged.tsv" "${tables[@]}"
    same "$tag ${opts:-totals} (${#chunks[@]} chunks)" "$tmp/whole.tsv" "$tmp/merged.tsv"
    # Without the probe file: the same table, except that rows of a split
    # record may keep table order, which merge then warns about.
    # shellcheck disable=SC2086
    "$bin" merge $mopts -o "$tmp/merged.tsv" "${tables[@]}" 2> "$tmp/warn"
    if grep -q "warning:" "$tmp/warn"; then
        sort "$tmp/whole.tsv" > "$tmp/whole.sorted"
        sort "$tmp/merged.tsv" > "$tmp/merged.sorted"
        same "$tag ${opts:-totals} without -p (same rows, order warned about)" "$tmp/whole.sorted" "$tmp/merged.sorted"
    else
        same "$tag ${opts:-totals} without -p" "$tmp/whole.tsv" "$tmp/merged.tsv"
    fi
    rm -f "$tmp"/chunk.*.tsv
}

# --- a record split over three tables whose rows cross, without -p ---
# The first join can only guess the order (p2 p4 p1 p3); the third table's
# p1 p2 crosses that guess. Each probe must still come once, summed: before
# the fix p2 came twice, as "R p2 CC 1" two times.
hdr=$(printf 'record\tname\tsequence\tcount')
printf '%s\nR\tp2\tCC\t1\nR\tp4\tTT\t1\n' "$hdr" > "$tmp/x1.tsv"
printf '%s\nR\tp1\tAA\t1\nR\tp3\tGG\t1\n' "$hdr" > "$tmp/x2.tsv"
printf '%s\nR\tp1\tAA\t1\nR\tp2\tCC\t1\n' "$hdr" > "$tmp/x3.tsv"
checks=$((checks + 1))
if "$bin" merge --split-records "$tmp/x1.tsv" "$tmp/x2.tsv" "$tmp/x3.tsv" > "$tmp/x.tsv" 2> "$tmp/x.err" &&
    [ "$(tail -n +2 "$tmp/x.tsv" | cut -f 2 | sort | uniq -d)" = "" ] &&
    [ "$(tail -n +2 "$tmp/x.tsv" | sort | tr '\n' ' ')" = "R	p1	AA	2 R	p2	CC	2 R	p3	GG	1 R	p4	TT	1 " ]; then
    echo "ok: crossing rows of a split record summed once each"
else
    echo "FAIL: crossing rows of a split record:" >&2
    cat "$tmp/x.tsv" "$tmp/x.err" >&2
    fails=$((fails + 1))
fi

# --- two inputs that each hold a record of the same name ---
# Counted apart and merged, they must stay two records, as in one run over
# both (before the input column merge summed them into one).
printf '>chromosome\nACGTACGTACGTAAAC\n' > "$tmp/first.fa"
printf '>chromosome\nACGTTTTTACGTAAAC\n' > "$tmp/second.fa"
printf 'p1\tACGT\np2\tAAAC\n' > "$tmp/same.probes"
"$bin" count --by-record -p "$tmp/same.probes" -o "$tmp/one.tsv" "$tmp/first.fa" "$tmp/second.fa"
"$bin" count --by-record -p "$tmp/same.probes" -o "$tmp/f1.tsv" "$tmp/first.fa"
"$bin" count --by-record -p "$tmp/same.probes" -o "$tmp/f2.tsv" "$tmp/second.fa"
"$bin" merge -o "$tmp/f12.tsv" "$tmp/f1.tsv" "$tmp/f2.tsv" 2> /dev/null
same "two inputs with a record of one name, --by-record" "$tmp/one.tsv" "$tmp/f12.tsv"

# --- interleaved mates dealt to chunks: two records of one name ---
# `@fragN 1:N:0` and `@fragN 2:N:0` are both record fragN. Chunks of 3, 4
# and 5 reads (one file name, so one input name) cut pairs apart; merge
# once summed the mates of a cut pair into one record. The tables cannot
# tell that from one record cut in pieces: without --split-records or
# --whole-records merge refuses, and --whole-records gives the single run.
awk 'function rnd() { x = (x * 16807) % 2147483647; return x / 2147483647 }
    function dna(n,   s, i) { s = ""; for (i = 0; i < n; i++) s = s b[1 + int(rnd() * 4)]; return s }
    BEGIN {
        x = 4242; split("A C G T", b, " "); q = "IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIII"
        for (f = 1; f <= 6; f++) {
            m1 = dna(40); m2 = substr(m1, 1, 20) dna(20)   # overlapping mates share probes
            printf("@frag%d 1:N:0\n%s\n+\n%s\n@frag%d 2:N:0\n%s\n+\n%s\n", f, m1, q, f, m2, q)
            printf("p%d\t%s\np%d\t%s\n", 2 * f - 1, substr(m1, 3, 9), 2 * f, substr(m2, 25, 9)) > "/dev/stderr"
        }
    }' > "$tmp/mates.fq" 2> "$tmp/mates.probes"
mkdir -p "$tmp/mc/1" "$tmp/mc/2" "$tmp/mc/3"
awk -v dir="$tmp/mc" '{ r = int((NR - 1) / 4); print > (dir "/" (r < 3 ? 1 : r < 7 ? 2 : 3) "/reads.fq") }' "$tmp/mates.fq"
cp "$tmp/mates.fq" "$tmp/reads.fq"
mopts=--whole-records
check_chunks "mates cut apart" "$tmp/mates.probes" "--by-record" "$tmp/reads.fq" -- "$tmp"/mc/*/reads.fq
mopts=
for i in 1 2 3; do "$bin" count --by-record -p "$tmp/mates.probes" -o "$tmp/mc.$i.tsv" "$tmp/mc/$i/reads.fq"; done
checks=$((checks + 1))
if "$bin" merge -p "$tmp/mates.probes" -o "$tmp/mc.tsv" "$tmp"/mc.[123].tsv 2> "$tmp/mc.err"; then
    echo "FAIL: mates cut apart merged without --whole-records or --split-records" >&2
    fails=$((fails + 1))
elif [ -e "$tmp/mc.tsv" ] || ! grep -q "mc.2.tsv: line 2: record 'frag2' of input 'reads' ends .*mc.1.tsv" "$tmp/mc.err" ||
    ! grep -q -- "--whole-records" "$tmp/mc.err" || ! grep -q -- "--split-records" "$tmp/mc.err"; then
    echo "FAIL: mates cut apart: the refusal left an output or does not say why: $(cat "$tmp/mc.err")" >&2
    fails=$((fails + 1))
else
    echo "ok: mates cut apart, no option: refused: $(cat "$tmp/mc.err")"
fi
rm -f "$tmp"/mc.*

# --- a wide matrix: 200,000 samples of 3 probes ---
# Linear in the table's size: before, merge looked each column up among all
# the others (two minutes and more here) and gave every column room for
# 1024 rows (1.6 GB). Now it takes about a second and some 50 MB; the bounds
# are generous, only quadratic time or per-column memory exceed them.
wide() { # PREFIX SEED: a by-file table, count (i * SEED + r) % 7
    awk -v n=200000 -v pre="$1" -v m="$2" 'BEGIN {
        printf "name\tsequence"; for (i = 0; i < n; i++) printf "\t%s%d", pre, i; print ""
        for (r = 1; r <= 3; r++) { printf "p%d\tACGT", r; for (i = 0; i < n; i++) printf "\t%d", (i * m + r) % 7; print "" } }'
}
wide s 3 > "$tmp/w1.tsv"
wide t 5 > "$tmp/w2.tsv"
# the merge of w1, w1 and w2: w1 doubled, then the samples of w2
awk -v n=200000 'BEGIN {
    printf "name\tsequence"; for (i = 0; i < n; i++) printf "\ts%d", i; for (i = 0; i < n; i++) printf "\tt%d", i; print ""
    for (r = 1; r <= 3; r++) { printf "p%d\tACGT", r
        for (i = 0; i < n; i++) printf "\t%d", 2 * ((i * 3 + r) % 7)
        for (i = 0; i < n; i++) printf "\t%d", (i * 5 + r) % 7
        print "" } }' > "$tmp/w.expected"
checks=$((checks + 1))
# A sanitizer build reserves far more address space than any limit here:
# the memory bound applies where a small merge runs within it.
limit=1000000 # KiB
# (exit $? keeps the shell reporting a sanitizer's abort inside the quiet subshell)
if (ulimit -v $limit && "$bin" merge "$tmp/x1.tsv" > /dev/null 2>&1; exit $?) 2> /dev/null; then
    memory="within $((limit / 1000)) MB"
else
    limit=unlimited
    memory="memory not bounded: this probescan cannot run under ulimit -v (a sanitizer build?)"
fi
rc=0
(ulimit -v $limit && timeout 120 "$bin" merge -o "$tmp/w.tsv" "$tmp/w1.tsv" "$tmp/w1.tsv" "$tmp/w2.tsv" 2> "$tmp/w.err") || rc=$?
if [ $rc -eq 0 ] && cmp -s "$tmp/w.expected" "$tmp/w.tsv"; then
    echo "ok: 200,000-sample matrices merged within 120 s, $memory"
else
    [ $rc -ne 124 ] || echo "not finished in 120 s" >> "$tmp/w.err"
    echo "FAIL: 200,000-sample matrices ($memory): exit $rc: $(grep -v warning "$tmp/w.err" | head -c 300)" >&2
    fails=$((fails + 1))
fi
rm -f "$tmp"/w*.tsv "$tmp/w.expected"

# --- a record of 200,000 probe rows cut in two, joined without -p ---
# Each row of one part was looked for among all rows of the other (about
# ten minutes here); keys are now numbered through a hash first.
awk 'BEGIN { print "input\trecord\tname\tsequence\tcount"; for (i = 0; i < 200000; i++) printf "g\tchr1\tp%d\tACGT\t1\n", i }' > "$tmp/l1.tsv"
awk 'BEGIN { print "input\trecord\tname\tsequence\tcount"; for (i = 0; i < 200000; i++) printf "g\tchr1\tq%d\tACGT\t2\n", i }' > "$tmp/l2.tsv"
checks=$((checks + 1))
rc=0
timeout 120 "$bin" merge --split-records -o "$tmp/l.tsv" "$tmp/l1.tsv" "$tmp/l2.tsv" 2> "$tmp/l.err" || rc=$?
# no probe is shared and nothing fixes the order: table order, warned about
if [ $rc -eq 0 ] && { cat "$tmp/l1.tsv"; tail -n +2 "$tmp/l2.tsv"; } | cmp -s - "$tmp/l.tsv" && grep -q "warning:.*-p" "$tmp/l.err"; then
    echo "ok: a record of 200,000 rows in two tables joined within 120 s"
else
    [ $rc -ne 124 ] || echo "not finished in 120 s" >> "$tmp/l.err"
    echo "FAIL: a record of 200,000 rows in two tables: exit $rc: $(head -c 300 "$tmp/l.err")" >&2
    fails=$((fails + 1))
fi
rm -f "$tmp"/l*.tsv

# --- random sequence: several records, one long record split in pieces ---
k=9
# The data comes from a Park-Miller generator in integer arithmetic that any
# awk computes alike (srand/rand differ between mawk and gawk).
awk -v k=$k 'function rnd() { x = (x * 16807) % 2147483647; return x / 2147483647 }
    BEGIN {
        x = 12345; split("A C G T", b, " ")
        for (r = 1; r <= 6; r++) {
            len = (r == 3) ? 50000 : 200 + int(rnd() * 3000)
            s = ""; for (i = 0; i < len; i++) s = s b[1 + int(rnd() * 4)]
            seq[r] = s; printf(">rec%d some description\n", r)
            for (i = 1; i <= len; i += 60) print substr(s, i, 60)
        }
        # probes: windows of the records (some repeated), a few random ones
        for (p = 1; p <= 60; p++) {
            r = 1 + int(rnd() * 6); st = 1 + int(rnd() * (length(seq[r]) - k))
            printf("p%d\t%s\n", p, substr(seq[r], st, k)) > "/dev/stderr"
        }
        for (p = 61; p <= 70; p++) {
            s = ""; for (i = 0; i < k; i++) s = s b[1 + int(rnd() * 4)]
            printf("p%d\t%s\n", p, s) > "/dev/stderr"
        }
    }' > "$tmp/rand.fa" 2> "$tmp/rand.probes"

mkdir -p "$tmp/rc" "$tmp/rs"
split_fasta "$tmp/rand.fa" "$tmp/rc" rand
# rec3 alone, cut into 4 overlapping pieces; the records around it whole
awk '/^>/ { n++ } n == 3' "$tmp/rand.fa" > "$tmp/rec3.fa"
split_record "$tmp/rec3.fa" "$tmp/rs" rand 4 $k
rchunks=("$tmp"/rc/*/rand.fa)
pieces=("${rchunks[0]}" "${rchunks[1]}" "$tmp"/rs/*/rand.fa "${rchunks[@]:3}")
for opts in "" "--by-file" "--by-record" "-s forward --by-record" "-m 2" "-m 1 -s forward"; do
    check_chunks "random, per record" "$tmp/rand.probes" "$opts" "$tmp/rand.fa" -- "${rchunks[@]}"
    mopts=--split-records
    check_chunks "random, a record split in 4" "$tmp/rand.probes" "$opts" "$tmp/rand.fa" -- "${pieces[@]}"
    mopts=
done

# --- a refusal: totals tables of different -m (mm0 mm1 mm2 against mm0 ... mm3) ---
checks=$((checks + 1))
"$bin" count -m 2 -p "$tmp/rand.probes" -o "$tmp/m2.tsv" "${rchunks[0]}"
"$bin" count -m 3 -p "$tmp/rand.probes" -o "$tmp/m3.tsv" "${rchunks[1]}"
if "$bin" merge -o "$tmp/m23.tsv" "$tmp/m2.tsv" "$tmp/m3.tsv" 2> "$tmp/err"; then
    echo "FAIL: totals tables of -m 2 and -m 3 were merged" >&2
    fails=$((fails + 1))
elif [ -e "$tmp/m23.tsv" ] || ! grep -q "m3.tsv: line 1: .*'mm3'" "$tmp/err"; then
    echo "FAIL: -m 2 with -m 3: refusal left an output or did not name m3.tsv line 1 and mm3: $(cat "$tmp/err")" >&2
    fails=$((fails + 1))
else
    echo "ok: -m 2 with -m 3 refused: $(cat "$tmp/err")"
fi

# --- a refusal: tables of different probe sets ---
checks=$((checks + 1))
head -n 30 "$tmp/rand.probes" > "$tmp/fewer.probes"
"$bin" count -p "$tmp/rand.probes" -o "$tmp/a.tsv" "$tmp/rand.fa"
"$bin" count -p "$tmp/fewer.probes" -o "$tmp/b.tsv" "$tmp/rand.fa"
if "$bin" merge -o "$tmp/ab.tsv" "$tmp/a.tsv" "$tmp/b.tsv" 2> "$tmp/err"; then
    echo "FAIL: tables of different probe sets were merged" >&2
    fails=$((fails + 1))
elif [ -e "$tmp/ab.tsv" ] || ! grep -q "b.tsv: line 32" "$tmp/err"; then
    echo "FAIL: refusal left an output or did not name b.tsv line 32: $(cat "$tmp/err")" >&2
    fails=$((fails + 1))
else
    echo "ok: different probe sets refused: $(cat "$tmp/err")"
fi

# --- real data ---
# Each part runs where its files are and otherwise skips, naming the file;
# the E. coli genome ships in fasta/, used where PS_DATA lacks it.
probes=$here/../workflows/snakemake/example/probes.fa
yeast=$data/yeast_S288C_R64-1-1.bgzf.fa.gz
ecoli=$data/ecoli_K12_MG1655.fa.gz
[ -f "$ecoli" ] || ecoli=$here/../fasta/ecoli_K12_MG1655.fa.gz
ont=$data/ont_cDNA_5k.fq.gz
# skip_data N FILE WHAT: N checks not run for want of FILE.
skip_data() {
    skipped=$((skipped + $1))
    echo "merge.sh: $1 skipped (data: no $(basename "$2") in ${PS_DATA:-$data (set PS_DATA)}: $3)"
}
mkdir -p "$tmp/yc" "$tmp/ec" "$tmp/fq"
# check_chunks gives 2 checks a call.
if [ -f "$yeast" ]; then
    gzip -dc "$yeast" > "$tmp/yeast.fa"
    split_fasta "$tmp/yeast.fa" "$tmp/yc" yeast
    for opts in "" "--by-file" "--by-record"; do
        check_chunks "yeast per chromosome" "$probes" "$opts" "$tmp/yeast.fa" -- "$tmp"/yc/*/yeast.fa
    done
else
    skip_data 6 "$yeast" "yeast per chromosome"
fi
gzip -dc "$ecoli" > "$tmp/ecoli.fa"
split_record "$tmp/ecoli.fa" "$tmp/ec" ecoli 5 21
for opts in "" "--by-file" "--by-record"; do
    mopts=--split-records
    check_chunks "E. coli in 5 overlapping pieces" "$probes" "$opts" "$tmp/ecoli.fa" -- "$tmp"/ec/*/ecoli.fa
    mopts=
done
if [ -f "$ont" ]; then
    gzip -dc "$ont" > "$tmp/ont.fq"
    split_fastq "$tmp/ont.fq" "$tmp/fq" ont 3
    check_chunks "ONT reads in 3 parts" "$probes" "--by-file" "$tmp/ont.fq" -- "$tmp"/fq/*/ont.fq
else
    skip_data 2 "$ont" "ONT reads in 3 parts"
fi
# several samples: yeast chunks, ONT parts and whole E. coli, one matrix
if [ -f "$yeast" ] && [ -f "$ont" ]; then
    check_chunks "three samples" "$probes" "--by-file" "$tmp/yeast.fa" "$tmp/ont.fq" "$tmp/ecoli.fa" -- \
        "$tmp"/yc/*/yeast.fa "$tmp"/fq/*/ont.fq "$tmp/ecoli.fa"
else
    skip_data 2 "$([ -f "$yeast" ] && echo "$ont" || echo "$yeast")" "three samples"
fi

echo "merge.sh: $((checks - fails)) passed, $fails failed, $skipped skipped"
[ "$fails" -eq 0 ]
