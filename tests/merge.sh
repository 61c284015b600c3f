#!/usr/bin/env bash
# Scatter/gather end to end: the merge of tables counted on chunks equals the
# table of one run over the whole input, byte for byte, for all three shapes:
#   totals     inputs split into chunks (FASTA per record, FASTQ by reads)
#   --by-file  chunk files named after their sample, so columns sum
#   --by-record records in order; one long record split into overlapping
#              pieces (k-1 bases shared, so every window lies in exactly one
#              piece) is joined back by merge
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
# in one run and each chunk alone, merge the chunk tables, compare.
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
    "$bin" merge -p "$probes" -o "$tmp/merged.tsv" "${tables[@]}"
    same "$tag ${opts:-totals} (${#chunks[@]} chunks)" "$tmp/whole.tsv" "$tmp/merged.tsv"
    # Without the probe file: the same table, except that rows of a split
    # record may keep table order, which merge then warns about.
    "$bin" merge -o "$tmp/merged.tsv" "${tables[@]}" 2> "$tmp/warn"
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
if "$bin" merge "$tmp/x1.tsv" "$tmp/x2.tsv" "$tmp/x3.tsv" > "$tmp/x.tsv" 2> "$tmp/x.err" &&
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
for opts in "" "--by-file" "--by-record" "-s forward --by-record"; do
    check_chunks "random, per record" "$tmp/rand.probes" "$opts" "$tmp/rand.fa" -- "${rchunks[@]}"
    check_chunks "random, a record split in 4" "$tmp/rand.probes" "$opts" "$tmp/rand.fa" -- "${pieces[@]}"
done

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
    check_chunks "E. coli in 5 overlapping pieces" "$probes" "$opts" "$tmp/ecoli.fa" -- "$tmp"/ec/*/ecoli.fa
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
