#!/usr/bin/env bash
# cli.sh - command-line tests of probescan: help and version, the output
# table, -o, standard input, options, exit codes, and every bad input, each
# of which must fail with one line "probescan: ..." on stderr that names the
# file, and leave no output file behind.
#
#   PROBESCAN=./probescan bash tests/cli.sh      (PS_DATA: real data, optional)
#
# Prints one line per failure, one line per group of cases skipped
# ("cli.sh: N skipped (kind: reason)") and a final "cli.sh: N passed,
# N failed, N skipped"; exits non-zero on any failure.
set -u

PROBESCAN=${PROBESCAN:-./probescan}
case $PROBESCAN in /*) ;; *) PROBESCAN=$PWD/$PROBESCAN ;; esac
if [ ! -x "$PROBESCAN" ]; then
    echo "cli.sh: $PROBESCAN is not an executable (build it with make)"
    exit 1
fi
WANT_VERSION=
if [ -f Makefile ]; then WANT_VERSION=$(sed -n 's/^VERSION *:= *//p' Makefile | head -1); fi
DATA=${PS_DATA:-}
case $DATA in "" | /*) ;; *) DATA=$PWD/$DATA ;; esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The random inputs below come from bash's $RANDOM, seeded here.
seed=${PS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "cli.sh: seed $seed (PS_SEED=$seed repeats this run)"
RANDOM=$seed
T=$(mktemp -d "${TMPDIR:-/tmp}/probescan-cli-XXXXXX") || exit 1
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
cd "$T" || exit 1

passed=0
failed=0
skipped=0
ok() { passed=$((passed + 1)); }
# skip N KIND REASON: N cases not run, for a reason of that kind (data, root, sanitizer).
skip() {
    skipped=$((skipped + $1))
    echo "cli.sh: $1 skipped ($2: $3)"
}
bad() {
    failed=$((failed + 1))
    echo "FAIL: $*"
}

# run ARGS...: runs probescan, stdout in out.txt, stderr in err.txt, status in $rc.
# RUN_AS: empty, or a command that runs probescan as another user (below).
RUN_AS=
run() {
    $RUN_AS "$PROBESCAN" "$@" >out.txt 2>err.txt
    rc=$?
}

# expect_ok DESC EXPECTED_FILE ARGS...: exit 0 and stdout exactly EXPECTED_FILE.
expect_ok() {
    local desc=$1 want=$2
    shift 2
    run "$@"
    if [ "$rc" -ne 0 ]; then
        bad "$desc: exit status $rc: $(head -3 err.txt)"
    elif ! cmp -s out.txt "$want"; then
        bad "$desc: output differs from the expected table:"
        diff "$want" out.txt | head -10
    else
        ok
    fi
}

# expect_fail DESC NAME ARGS...: a count run that must fail: non-zero status
# (not a crash), nothing on stdout, exactly one stderr line starting
# "probescan: " and naming NAME (skipped if NAME is empty), and -o leaving
# nothing in its directory.
expect_fail() {
    local desc=$1 name=$2
    shift 2
    rm -rf outdir && mkdir outdir
    [ -z "$RUN_AS" ] || chmod 777 outdir
    run "$@" -o outdir/out.tsv
    local lines
    lines=$(wc -l <err.txt)
    if [ "$rc" -eq 0 ]; then
        bad "$desc: exit status 0"
    elif [ "$rc" -ge 126 ]; then
        bad "$desc: exit status $rc (crashed?): $(head -3 err.txt)"
    elif [ -s out.txt ]; then
        bad "$desc: wrote to stdout: $(head -2 out.txt)"
    elif [ "$lines" -ne 1 ]; then
        bad "$desc: $lines lines on stderr, want 1:"
        head -5 err.txt
    elif ! grep -q '^probescan: ' err.txt; then
        bad "$desc: stderr does not start with 'probescan: ': $(cat err.txt)"
    elif [ -n "$name" ] && ! grep -qF -- "$name" err.txt; then
        bad "$desc: message does not name $name: $(cat err.txt)"
    elif [ -n "$(ls -A outdir)" ]; then
        bad "$desc: left $(ls -A outdir | tr '\n' ' ')in the output directory"
    else
        ok
    fi
}

# expect_usage DESC ARGS...: a usage error: non-zero status (not a crash),
# nothing on stdout, a message on stderr that starts with "probescan".
expect_usage() {
    local desc=$1
    shift
    run "$@"
    if [ "$rc" -eq 0 ] || [ "$rc" -ge 126 ]; then
        bad "$desc: exit status $rc"
    elif [ -s out.txt ]; then
        bad "$desc: wrote to stdout"
    elif ! head -1 err.txt | grep -q '^probescan'; then
        bad "$desc: stderr does not start with 'probescan': $(head -2 err.txt)"
    else
        ok
    fi
}

# ---------------------------------------------------------------- inputs

printf '>s1 first record\nACGTACGTNNACGT\n>s2\nacgtTTTT\n>s3\n' >genome.fa
printf 'p1\tACG\np2\tCGT\np3\tTTT\np4\tAAA\np5\tGTA\np6\tACG\n' >probes.tsv
printf '>p1 desc\nACG\n>p2\nCGT\n>p3\nTTT\n>p4\nAAA\n>p5\nGTA\n>p6\nACG\n' >probes.fa
printf 'ACG\nCGT\nTTT\nAAA\nGTA\nACG\n' >probes.txt

# Counted by hand. Segments: ACGTACGT | ACGT (N run) and ACGTTTTT (s2, lowercase):
# ACG 4, CGT 4, TTT 3, AAA 0, GTA 1, TAC 1.
printf 'name\tsequence\tcount\tforward\treverse\n' >both.tsv
printf 'p1\tACG\t8\t4\t4\np2\tCGT\t8\t4\t4\np3\tTTT\t3\t3\t0\np4\tAAA\t3\t0\t3\np5\tGTA\t2\t1\t1\np6\tACG\t8\t4\t4\n' >>both.tsv
printf 'name\tsequence\tcount\n' >forward.tsv
printf 'p1\tACG\t4\np2\tCGT\t4\np3\tTTT\t3\np4\tAAA\t0\np5\tGTA\t1\np6\tACG\t4\n' >>forward.tsv
# Two inputs: every count doubles.
printf 'name\tsequence\tcount\tforward\treverse\n' >double.tsv
printf 'p1\tACG\t16\t8\t8\np2\tCGT\t16\t8\t8\np3\tTTT\t6\t6\t0\np4\tAAA\t6\t0\t6\np5\tGTA\t4\t2\t2\np6\tACG\t16\t8\t8\n' >>double.tsv

# ---------------------------------------------------------------- help, version

run --help
if [ "$rc" -eq 0 ] && grep -q 'count' out.txt; then ok; else bad "--help: status $rc or no usage on stdout"; fi
run count --help
if [ "$rc" -eq 0 ] && grep -q -- '--probes' out.txt && grep -q -- '--strand' out.txt; then ok; else
    bad "count --help: status $rc or options missing on stdout"
fi
run count -h
if [ "$rc" -eq 0 ] && grep -q -- '--probes' out.txt; then ok; else bad "count -h: status $rc"; fi
run
if [ "$rc" -lt 126 ] && grep -q 'count' out.txt err.txt; then ok; else bad "no arguments: no help shown (status $rc)"; fi
run count
if [ "$rc" -lt 126 ] && grep -q -- '--probes' out.txt err.txt; then ok; else bad "count without arguments: no help shown (status $rc)"; fi

run --version
if [ "$rc" -ne 0 ]; then
    bad "--version: status $rc"
elif [ "$(wc -l <out.txt)" -ne 1 ] || ! grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$' out.txt; then
    bad "--version: not a bare version string: $(head -2 out.txt)"
elif [ -n "$WANT_VERSION" ] && [ "$(cat out.txt)" != "$WANT_VERSION" ]; then
    bad "--version: $(cat out.txt), Makefile says $WANT_VERSION"
else
    ok
fi

# ---------------------------------------------------------------- counting

expect_ok "both strands" both.tsv count -p probes.tsv genome.fa
expect_ok "forward strand" forward.tsv count -s forward -p probes.tsv genome.fa
expect_ok "long options" forward.tsv count --strand forward --probes probes.tsv --threads 2 --alphabet dna genome.fa
expect_ok "-s both" both.tsv count -s both -p probes.tsv genome.fa
expect_ok "probes as FASTA" both.tsv count -p probes.fa genome.fa
sed 's/^p[0-9]\t\([ACGT]*\)/\1\t\1/' both.tsv >plain_names.tsv
expect_ok "probes one per line (name = sequence)" plain_names.tsv count -p probes.txt genome.fa
# Lower-case and mixed lines: the name as written, the sequence upper-cased.
printf 'acg\nCgT\nTTT\nAAA\nGTA\nACG\n' >probes_lower.txt
awk 'BEGIN { FS = OFS = "\t" } NR == 2 { $1 = "acg" } NR == 3 { $1 = "CgT" } { print }' plain_names.tsv >lower_names.tsv
expect_ok "probes one per line, lower case: names as written" lower_names.tsv count -p probes_lower.txt genome.fa
expect_ok "-a dna" both.tsv count -a dna -p probes.tsv genome.fa
expect_ok "-a auto" both.tsv count -a auto -p probes.tsv genome.fa
for t in 1 3 8; do expect_ok "-t $t" both.tsv count -t "$t" -p probes.tsv genome.fa; done
expect_ok "--engine cpu" both.tsv count --engine cpu -p probes.tsv genome.fa
cp genome.fa genome_copy.fa
expect_ok "two inputs add up" double.tsv count -p probes.tsv genome.fa genome_copy.fa

gzip -c genome.fa >genome.fa.gz
expect_ok "gzip input" both.tsv count -p probes.tsv genome.fa.gz
expect_ok "plain and gzip inputs" double.tsv count -p probes.tsv genome.fa genome.fa.gz
gzip -c probes.tsv >probes.tsv.gz
expect_ok "gzip probe file" both.tsv count -p probes.tsv.gz genome.fa

# Standard input.
"$PROBESCAN" count -p probes.tsv - <genome.fa >out.txt 2>err.txt
rc=$?
if [ "$rc" -eq 0 ] && cmp -s out.txt both.tsv; then ok; else bad "stdin '-': status $rc or wrong table"; fi
"$PROBESCAN" count -p probes.tsv genome.fa - <genome.fa.gz >out.txt 2>err.txt
rc=$?
if [ "$rc" -eq 0 ] && cmp -s out.txt double.tsv; then ok; else bad "file and gzip stdin: status $rc or wrong table"; fi

# FASTQ input.
printf '@r1 x\nACGTACGTNNACGT\n+\nIIIIIIIIIIIIII\n@r2\nacgtTTTT\n+\n@@@@IIII\n' >reads.fq
expect_ok "FASTQ input" both.tsv count -p probes.tsv reads.fq

# Palindrome: ACGT is its own reverse complement and counts twice.
printf 'pal\tACGT\n' >pal.tsv
printf 'name\tsequence\tcount\tforward\treverse\npal\tACGT\t8\t4\t4\n' >pal_want.tsv
expect_ok "palindrome counts twice" pal_want.tsv count -p pal.tsv genome.fa

# Protein: N is asparagine, matched literally; auto picks protein once a
# probe has a letter that is no base (alone, GTN would be DNA: N any base).
printf 'GTN\nNNA\nTTT\n' >pep.txt
printf 'name\tsequence\tcount\nGTN\tGTN\t1\nNNA\tNNA\t1\nTTT\tTTT\t3\n' >pep_want.tsv
expect_ok "-a protein" pep_want.tsv count -a protein -p pep.txt genome.fa
printf 'GTN\nNNA\nTTT\nMKV\n' >pep_auto.txt
{ cat pep_want.tsv; printf 'MKV\tMKV\t0\n'; } >pep_auto_want.tsv
expect_ok "auto alphabet picks protein" pep_auto_want.tsv count -p pep_auto.txt genome.fa
printf 'name\tsequence\tcount\np1\tACG\t4\np2\tCGT\t4\np3\tTTT\t3\np4\tAAA\t0\np5\tGTA\t1\np6\tACG\t4\n' >prot_acg.tsv
expect_ok "-a protein with DNA-looking probes" prot_acg.tsv count -a protein -p probes.tsv genome.fa

# -q is quiet, -v says what alphabet auto chose.
run count -q -p probes.tsv genome.fa
if [ "$rc" -eq 0 ] && [ ! -s err.txt ] && cmp -s out.txt both.tsv; then ok; else bad "-q: status $rc or stderr not empty: $(head -2 err.txt)"; fi
run count -v -p probes.tsv genome.fa
if [ "$rc" -eq 0 ] && cmp -s out.txt both.tsv && grep -qi 'dna' err.txt; then ok; else
    bad "-v: status $rc, wrong table or no alphabet on stderr"
fi
run count -v -p pep_auto.txt genome.fa
if [ "$rc" -eq 0 ] && grep -qi 'protein' err.txt; then ok; else bad "-v: auto protein not reported"; fi
# --stats names the strands actually counted: protein is forward only.
for s in "pep_auto.txt protein forward" "probes.tsv dna both"; do
    set -- $s
    run count --stats st.json -p "$1" genome.fa
    if [ "$rc" -eq 0 ] && grep -q "\"alphabet\": \"$2\"" st.json && grep -q "\"strands\": \"$3\"" st.json; then ok; else
        bad "--stats for $1: status $rc or not $2 / $3: $(grep -E 'alphabet|strands' st.json | tr '\n' ' ')"
    fi
    rm -f st.json
done

# -o: the file gets the table, stdout nothing; an older file is replaced.
mkdir -p res
echo old >res/counts.tsv
run count -p probes.tsv -o res/counts.tsv genome.fa
if [ "$rc" -eq 0 ] && [ ! -s out.txt ] && cmp -s res/counts.tsv both.tsv && [ "$(ls -A res)" = counts.tsv ]; then ok; else
    bad "-o: status $rc, stdout not empty, wrong file or leftovers: $(ls -A res | tr '\n' ' ')"
fi
run count -p probes.tsv --output res/long.tsv genome.fa
if [ "$rc" -eq 0 ] && cmp -s res/long.tsv both.tsv; then ok; else bad "--output: status $rc or wrong file"; fi
run count -p probes.tsv -o - genome.fa
if [ "$rc" -eq 0 ] && cmp -s out.txt both.tsv; then ok; else bad "-o -: status $rc or wrong table on stdout"; fi

# Per-file and per-record tables.
gzip -c genome.fa >other.fa.gz
run count --by-file -p probes.tsv genome.fa other.fa.gz
if [ "$rc" -eq 0 ] && [ "$(head -1 out.txt | awk -F'\t' '{print NF}')" = 4 ] &&
    head -1 out.txt | grep -q "^name	sequence	" &&
    [ "$(tail -n +2 out.txt | cut -f 1,2,3)" = "$(tail -n +2 both.tsv | cut -f 1,2,3)" ] &&
    [ "$(tail -n +2 out.txt | cut -f 1,2,4)" = "$(tail -n +2 both.tsv | cut -f 1,2,3)" ]; then ok; else
    bad "--by-file: status $rc or wrong table: $(head -3 out.txt | tr '\n' '|')"
fi
printf 'input\trecord\tname\tsequence\tcount\tforward\treverse\n' >byrec.tsv
printf 'genome\ts1\tp1\tACG\t6\t3\t3\ngenome\ts1\tp2\tCGT\t6\t3\t3\ngenome\ts1\tp5\tGTA\t2\t1\t1\ngenome\ts1\tp6\tACG\t6\t3\t3\n' >>byrec.tsv
printf 'genome\ts2\tp1\tACG\t2\t1\t1\ngenome\ts2\tp2\tCGT\t2\t1\t1\ngenome\ts2\tp3\tTTT\t3\t3\t0\ngenome\ts2\tp4\tAAA\t3\t0\t3\ngenome\ts2\tp6\tACG\t2\t1\t1\n' >>byrec.tsv
expect_ok "--by-record" byrec.tsv count --by-record --engine cpu -p probes.tsv genome.fa

# Bigger input through several threads: same table for any -t.
awk 'BEGIN { srand(7); print ">big"; for (l = 0; l < 4000; l++) { s = ""; for (i = 0; i < 60; i++) s = s substr("ACGTACGTACGTN", int(rand() * 13) % 13 + 1, 1); print s } }' >big.fa
printf 'ACGTA\nTTTTT\nGATTA\nCCCCG\nNNNNA\n' | head -4 >big_probes.txt
"$PROBESCAN" count -t 1 -p big_probes.txt big.fa >big1.tsv 2>/dev/null
"$PROBESCAN" count -t 4 -p big_probes.txt big.fa >big4.tsv 2>/dev/null
if [ -s big1.tsv ] && cmp -s big1.tsv big4.tsv; then ok; else bad "-t 1 and -t 4 disagree on a bigger input"; fi

# Memory stays bounded on a stream: 100 MB through standard input, as
# 33-letter lines and as one line, must not grow the process (--stats peak).
if grep -qa __asan_init "$PROBESCAN"; then
    skip 2 sanitizer "shadow memory counts in a sanitizer build: memory-bound cases"
else
    for shape in lines one-line; do
        if [ "$shape" = lines ]; then filter=cat; else filter="tr -d \\n"; fi
        { echo '>stream'; yes ACGTACGTTGCAGGATTACANNACGTTTGACCA | $filter | head -c 100000000; echo; } |
            "$PROBESCAN" count -q -t 2 --engine cpu -p probes.tsv --stats stats.json - >out.txt 2>err.txt
        rc=$?
        peak=$(sed -n 's/.*"peak_memory_bytes": *\([0-9]*\).*/\1/p' stats.json 2>/dev/null)
        if [ "$rc" -ne 0 ] || [ -z "$peak" ]; then
            bad "100 MB stream ($shape): status $rc, no peak memory in --stats: $(head -2 err.txt)"
        elif [ "$peak" -gt 64000000 ]; then
            bad "100 MB stream ($shape): peak memory $peak bytes, want a bounded ring (< 64 MB)"
        else
            ok
        fi
        rm -f stats.json
    done
fi

# ---------------------------------------------------------------- usage errors

expect_usage "unknown option" count --bogus -p probes.tsv genome.fa
expect_usage "unknown command" frobnicate -p probes.tsv genome.fa
expect_usage "no -p" count genome.fa
expect_usage "no input" count -p probes.tsv
expect_usage "-t 0" count -t 0 -p probes.tsv genome.fa
expect_usage "-t abc" count -t abc -p probes.tsv genome.fa
expect_usage "-a rna" count -a rna -p probes.tsv genome.fa
expect_usage "-s up" count -s up -p probes.tsv genome.fa
expect_usage "--engine warp" count --engine warp -p probes.tsv genome.fa

# ---------------------------------------------------------------- bad input

expect_fail "missing input file" missing.fa count -p probes.tsv missing.fa
expect_fail "missing second input" missing2.fa count -p probes.tsv genome.fa missing2.fa
expect_fail "missing probe file" nope.tsv count -p nope.tsv genome.fa
# Root reads anything: as root, these run as the unprivileged user nobody.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
    setpriv --reuid=65534 --regid=65534 --clear-groups "$PROBESCAN" --version >/dev/null 2>&1; then
    RUN_AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
    chmod 755 "$T"
fi
if [ "$(id -u)" -ne 0 ] || [ -n "$RUN_AS" ]; then
    cp genome.fa secret.fa && chmod 000 secret.fa
    expect_fail "unreadable input file" secret.fa count -p probes.tsv secret.fa
    cp probes.tsv secret.tsv && chmod 000 secret.tsv
    expect_fail "unreadable probe file" secret.tsv count -p secret.tsv genome.fa
else
    skip 2 root "running as root and cannot run probescan as user nobody: unreadable-file cases"
fi
RUN_AS=
chmod 700 "$T"
mkdir -p adir
expect_fail "directory as input" adir count -p probes.tsv adir

: >empty.tsv
expect_fail "empty probe file" empty.tsv count -p empty.tsv genome.fa
printf '# nothing\n\n' >comments.tsv
expect_fail "probe file with no probes" comments.tsv count -p comments.tsv genome.fa
# Probes of several lengths, IUPAC codes and mismatches are patterns; each
# count must equal what exact runs of the strings they stand for add up to.
# col NAME: the count column of NAME's row in out.txt.
col() { awk -F'\t' -v n="$1" '$1 == n { print $3 }' out.txt; }
# exact_sum STRINGS...: the exact counts of these strings, summed.
exact_sum() {
    printf '%s\n' "$@" >exact.txt
    "$PROBESCAN" count -q -a dna -p exact.txt genome.fa | awk -F'\t' 'NR > 1 { s += $3 } END { print s + 0 }'
}
printf 'a\tACGT\nb\tACGT\nc\tACG\n' >uneven.tsv
run count -q -p uneven.tsv genome.fa
if [ "$rc" -eq 0 ] && [ "$(col c)" = "$(exact_sum ACG)" ] && [ "$(col a)" = "$(exact_sum ACGT)" ]; then ok
else bad "probes of different lengths: $rc $(cat err.txt) $(cat out.txt)"; fi
printf 'ACGT\nACRT\nACNT\n' >iupac.txt
run count -q -a dna -p iupac.txt genome.fa
if [ "$rc" -eq 0 ] && [ "$(col ACRT)" = "$(exact_sum ACAT ACGT)" ] &&
   [ "$(col ACNT)" = "$(exact_sum ACAT ACCT ACGT ACTT)" ] && [ "$(col ACNT)" -gt 0 ]; then ok
else bad "IUPAC probes: $rc $(cat err.txt) $(cat out.txt)"; fi
run count -q -a dna -p iupac.txt -s forward genome.fa
if [ "$rc" -eq 0 ] && [ "$(col ACRT)" = "$(printf 'ACAT\nACGT\n' >e.txt; "$PROBESCAN" count -q -s forward -p e.txt genome.fa |
    awk -F'\t' 'NR > 1 { s += $3 } END { print s }')" ]; then ok; else bad "IUPAC probe, forward: $(cat out.txt)"; fi
# The same probes in PROSITE syntax count the same.
printf 'ACGT\tA-C-G-T\nACRT\tA-C-[AG]-T.\nACNT\tA-C-x-T\n' >prosite_dna.tsv
run count -q -a dna -p prosite_dna.tsv genome.fa
if [ "$rc" -eq 0 ] && [ "$(col ACRT)" = "$(exact_sum ACAT ACGT)" ] && [ "$(col ACNT)" = "$(exact_sum ACAT ACCT ACGT ACTT)" ]; then ok
else bad "PROSITE-syntax DNA probes: $rc $(cat err.txt) $(cat out.txt)"; fi
# -m 1: every 4-mer within one substitution of ACGT; mm0 is ACGT itself.
near=$(for i in 0 1 2 3; do for b in A C G T; do s=ACGT; t="${s:0:$i}$b${s:$((i + 1))}"; [ "$t" = ACGT ] || echo "$t"; done; done)
printf 'ACGT\n' >one.txt
run count -q -m 1 -p one.txt genome.fa
want_mm1=$(exact_sum $near)
if [ "$rc" -eq 0 ] && head -1 out.txt | grep -q $'count\tforward\treverse\tmm0\tmm1$' &&
   [ "$(awk -F'\t' 'NR == 2 { print $6 }' out.txt)" = "$(exact_sum ACGT)" ] &&
   [ "$(awk -F'\t' 'NR == 2 { print $7 }' out.txt)" = "$want_mm1" ] &&
   [ "$(col ACGT)" = "$(exact_sum ACGT $near)" ]; then ok
else bad "-m 1: want mm1 $want_mm1: $rc $(cat err.txt) $(cat out.txt)"; fi
run count -q -m 0 -p one.txt genome.fa
if [ "$rc" -eq 0 ] && head -1 out.txt | grep -q $'reverse\tmm0$' && [ "$(col ACGT)" = "$(exact_sum ACGT)" ]; then ok
else bad "-m 0: $(cat out.txt)"; fi
expect_fail "too many mismatches" mismatches count -m 9 -p one.txt genome.fa
# PROSITE: a data file's PATTERN entries are rows named by accession with
# their ID; MATRIX entries are skipped with a count; anchors and variable
# repeats count once per start (ScanProsite's convention).
cat >motifs.dat <<'DAT'
CC   a test file in the PROSITE layout
ID   TEST_ONE; PATTERN.
AC   PS99901;
PA   C-x(1,3)-
PA   H.
//
ID   TEST_MATRIX; MATRIX.
AC   PS99902;
MA   /GENERAL_SPEC: ALPHABET='ACDEFGHIKLMNPQRSTVWY';
//
ID   TEST_ANCHOR; PATTERN.
AC   PS99903;
PA   <M-K.
//
ID   TEST_END; PATTERN.
AC   PS99904;
PA   [KR]-[DE]-E-L>.
//
DAT
printf '>p1\nMKCAHCAAHCAAAH\n>p2\nAMKCHKDEL\n>p3\nMK-CH.KEEL\n' >prot.fa
run count -q -p motifs.dat prot.fa
want=$(printf 'name\tid\tsequence\tcount\nPS99901\tTEST_ONE\tC-x(1,3)-H.\t3\nPS99903\tTEST_ANCHOR\t<M-K.\t2\nPS99904\tTEST_END\t[KR]-[DE]-E-L>.\t2\n')
if [ "$rc" -eq 0 ] && [ "$(cat out.txt)" = "$want" ] && grep -q '3 PROSITE patterns; 1 MATRIX entries (profiles' err.txt &&
    grep -q 'profile TEST_MATRIX skipped: no LENGTH' err.txt; then ok
else bad "PROSITE data file: $rc $(cat err.txt)"; cat out.txt; fi
cp out.txt prosite_table.tsv
run merge prosite_table.tsv prosite_table.tsv
if [ "$rc" -ne 0 ] && grep -q "PROSITE entries" err.txt; then ok; else bad "merge of a PROSITE table: $rc $(cat err.txt)"; fi
# --gpu: a list of device numbers or all; malformed lists are refused
# whatever the engine.
for g in x 0,0 0, ,1 1..2 -1; do
    expect_fail "--gpu '$g'" "--gpu" count --engine cpu --gpu "$g" -p probes.tsv genome.fa
done
expect_ok "--gpu 0,1 on CPU threads" both.tsv count --engine cpu --gpu 0,1 -p probes.tsv genome.fa
# A GPU that does not exist is refused where a GPU may run, on any build.
expect_fail "--gpu 999" "--gpu" count --gpu 999 -p probes.tsv genome.fa
expect_fail "--gpu 0,999 (locate)" "--gpu" locate --gpu 0,999 -p probes.tsv genome.fa
expect_ok "--gpu all on CPU threads" both.tsv count --engine cpu --gpu all -p probes.tsv genome.fa
run count -q --engine cpu -p probes.tsv --stats gstats.json genome.fa
if [ "$rc" -eq 0 ] && grep -q '"gpus": \[\]' gstats.json; then ok; else bad "--stats on the CPU: no empty gpus list: $(grep gpus gstats.json)"; fi
printf 'C>-x(2,4)-C\n' >badrep.txt
expect_fail "anchor inside a pattern" "must end the pattern" count -p badrep.txt genome.fa
if "$PROBESCAN" version 2>/dev/null | grep -q 'driver none'; then
    expect_fail "patterns on the GPU engine, no GPU" "GPU" count --engine gpu -m 1 -p one.txt genome.fa
else
    skip 1 gpu "a CUDA driver is installed: the GPU suite compares the engines"
fi
printf 'ACGT\nAC1T\n' >digit.txt
expect_fail "probe with a digit" digit.txt count -p digit.txt genome.fa
printf 'ACGT\nACXT\n' >xprobe.txt
expect_fail "probe letter outside DNA" xprobe.txt count -a dna -p xprobe.txt genome.fa
printf 'MKVL\nMK-L\n' >dash.txt
expect_fail "probe with a dash" dash.txt count -a protein -p dash.txt genome.fa

# Guides: a PAM, limits per probe, Cas-OFFinder's files, and their refusals.
printf 'g1\tACGTACGT\ng2\tTTTTACGT\t1\n' >guides.tsv
printf '>c\nACGTACGTAGGTTTTACCTAGGTT\n' >pam.fa
run count --pam NGG -p guides.tsv pam.fa
if [ "$rc" -eq 0 ] && grep -q $'^g1\tACGTACGTNGG\t1\t1\t0\t1\t0$' out.txt && grep -q $'^g2\tTTTTACGTNGG\t1\t1\t0\t0\t1$' out.txt; then
    ok
else
    bad "count --pam NGG with a limit column: $(cat out.txt err.txt | tr '\n' '|')"
fi
run locate --pam5 CGT -m 1 --format cas-offinder -p guides.tsv pam.fa
if [ "$rc" -eq 0 ] && [ "$(cut -f1-6 out.txt | tr '\n' '|')" = $'NNNACGTACGT\tc\t1\tCGTACGTAgGT\t+\t1|' ]; then ok; else bad "locate --pam5 --format cas-offinder: $(cat out.txt err.txt | tr '\n' '|')"; fi
# Genome letters that are no base under Cas-OFFinder's rule (--format
# cas-offinder): N under the PAM's N passes; N against a guide base is a
# mismatch, written n; BED rows keep the rule of every probe (no site).
printf '>c\nACGTACGTNGGTTACNTACGTAGGTTTTACGNAGG\n' >npam.fa
run locate --pam NGG --format cas-offinder -p guides.tsv npam.fa
if [ "$rc" -eq 0 ] && [ "$(cut -f1-6 out.txt | tr '\n' '|')" = $'ACGTACGTNNN\tc\t0\tACGTACGTNGG\t+\t0|TTTTACGTNNN\tc\t24\tTTTTACGnAGG\t+\t1|' ]; then ok; else bad "--format cas-offinder, sites holding N: $(cat out.txt err.txt | tr '\n' '|')"; fi
run locate --pam NGG -p guides.tsv npam.fa
if [ "$rc" -eq 0 ] && [ ! -s out.txt ]; then ok; else bad "BED rows: a site holding N is no site: $(cat out.txt err.txt | tr '\n' '|')"; fi
printf 'g1\tACGTACGT\n' >g1.tsv
expect_fail "Cas-OFFinder's N rule over standard input" "give a file, not standard input" locate --pam NGG --format cas-offinder -p g1.tsv - <npam.fa
expect_fail "PAM letter that is no IUPAC code" "'X'" count --pam NGX -p guides.tsv pam.fa
expect_fail "--pam and --pam5 together" "--pam5" count --pam NGG --pam5 TTTV -p guides.tsv pam.fa
expect_fail "PAM beside protein probes" "protein" count --pam NGG -a protein -p guides.tsv pam.fa
printf 'g\tACGT\t9\n' >limit9.tsv
expect_fail "a probe's limit over 8" "limit9.tsv: line 1: probe 'g'" count -p limit9.tsv pam.fa
# Bulges: a Cas-OFFinder file with bulge sizes, and --dna-bulge/--rna-bulge;
# count's sites are locate's rows, and the refusals.
printf 'pam.fa\nNNNNNNNNGG 1 1\nACGTACGTNN 2 b1\n' >bulge.txt
run count -p bulge.txt
total=$(awk -F'\t' 'NR == 2 { print $3 }' out.txt)
if [ "$rc" -eq 0 ] && head -1 out.txt | grep -q $'\tdna1_mm0\t.*\trna1_mm2$' && [ "${total:-0}" -gt 0 ] &&
    [ "$($RUN_AS "$PROBESCAN" locate -q -p bulge.txt | wc -l)" = "$total" ]; then
    ok
else
    bad "count of a Cas-OFFinder file with bulges, against locate's rows: $(cat out.txt err.txt | tr '\n' '|')"
fi
run locate --format cas-offinder -p bulge.txt
if [ "$rc" -eq 0 ] && [ "$(head -2 out.txt | tail -1 | cut -f1-3)" = $'#Id\tBulge Type\tcrRNA' ] &&
    grep -q $'^b1\tDNA\tACGTACGT-NN\tACGTACGTAGG\tc\t0\t+\t0\t1$' out.txt && [ "$(grep -c '^b1' out.txt)" = 3 ]; then
    ok
else
    bad "Cas-OFFinder 3 rows of a file with bulges: $(cat out.txt err.txt | tr '\n' '|')"
fi
run locate --pam GG --dna-bulge 1 --format tsv -p guides.tsv pam.fa
if [ "$rc" -eq 0 ] && head -1 out.txt | grep -q $'\tbulge\tbulge_size$'; then ok; else bad "locate --dna-bulge --format tsv: $(head -2 out.txt err.txt | tr '\n' '|')"; fi
# merge sums bulge tables column by column (their header kept); a header
# whose bulge blocks are out of order is no table.
"$PROBESCAN" count -q -p bulge.txt -o bulge_a.tsv && cp bulge_a.tsv bulge_b.tsv
run merge bulge_a.tsv bulge_b.tsv
if [ "$rc" -eq 0 ] && [ "$(head -1 out.txt)" = "$(head -1 bulge_a.tsv)" ] &&
    [ "$(awk -F'\t' 'NR == 2 { print $3 }' out.txt)" = "$((2 * $(awk -F'\t' 'NR == 2 { print $3 }' bulge_a.tsv)))" ]; then
    ok
else
    bad "merge of two bulge tables: $(cat out.txt err.txt | tr '\n' '|')"
fi
sed '1s/dna1_/dna2_/g' bulge_a.tsv >bulge_bad.tsv
expect_fail "a bulge table with its blocks misnamed" "header" merge bulge_bad.tsv bulge_a.tsv
# --max-hits caps a guide's rows, whatever its variants.
run locate --max-hits 1 --format cas-offinder -p bulge.txt
if [ "$rc" -eq 0 ] && [ "$(grep -c '^b1' out.txt)" = 1 ] && grep -q "1 probe had more sites; 2 sites not reported" err.txt; then
    ok
else
    bad "--max-hits 1 with bulges: $(cat out.txt err.txt | tr '\n' '|')"
fi
expect_fail "--dna-bulge beside a Cas-OFFinder file" "bulge sizes" count --dna-bulge 1 -p bulge.txt
expect_fail "--dna-bulge 0 --rna-bulge 0 beside a Cas-OFFinder file" "bulge sizes" locate --dna-bulge 0 --rna-bulge 0 -p bulge.txt
printf 'pam.fa\nNNNNNNNNGG\nACGTACGTNN 2 b1\n' >nobulge.txt
expect_fail "--dna-bulge beside a Cas-OFFinder file without sizes" "PATTERN DNA RNA" count --dna-bulge 1 -p nobulge.txt
expect_fail "a bulge of 9" "--rna-bulge" count --rna-bulge 9 --pam NGG -p guides.tsv pam.fa
# A library looked up by N exact pieces of D + N: the same table at every
# N, with and without a PAM, and -v says which N ran.
awk -v seed="$RANDOM" 'BEGIN { srand(seed); printf ">lib\n"; for (i = 0; i < 60000; i++) { printf "%s", substr("AACGTT", 1 + int(rand() * 6) % 6, 1); if (i % 80 == 79) printf "\n" } printf "\n" }' >lib.fa
awk -v seed="$RANDOM" '!/^>/ { s = s $0 } END { srand(seed); for (k = 0; k < 300; k++) { p = 1 + int(rand() * (length(s) - 20)); g = substr(s, p, 20); if (rand() < 0.5) g = substr(g, 1, 9) "A" substr(g, 11); print "g" k "\t" g } }' lib.fa >lib.tsv
for pam in "" "--pam NGG"; do
    run count $pam -m 4 --engine cpu -p lib.tsv lib.fa
    cp out.txt lib_want.tsv
    [ -n "$pam" ] || lib_sites=$(awk -F'\t' 'NR > 1 { s += $3 } END { print s + 0 }' lib_want.tsv)
    for n in 1 2 3 4; do
        run count -v $pam -m 4 --engine cpu --exact-pieces $n -p lib.tsv lib.fa
        if [ "$rc" -ne 0 ] || ! cmp -s out.txt lib_want.tsv; then bad "--exact-pieces $n $pam: table differs (exit $rc)"
        elif ! grep -q "by $n exact pieces of $((4 + n))" err.txt; then bad "--exact-pieces $n $pam: -v says $(grep guides err.txt)"
        else ok; fi
    done
done
if [ "$lib_sites" -gt 300 ]; then ok; else bad "the library found only $lib_sites sites: too few to test"; fi
# The index's memory bound (README): 100,000 20-mers within 4 take 3 exact
# pieces of 7, 259 MB of tables; the whole run stays under 400 MB.
awk -v seed="$RANDOM" 'BEGIN { srand(seed); for (k = 0; k < 100000; k++) { g = ""; for (i = 0; i < 20; i++) g = g substr("ACGT", 1 + int(rand() * 4) % 4, 1); print g } }' >lib100k.txt
run count -v -m 4 --engine cpu -t 2 --stats lib100k.json -p lib100k.txt lib.fa
peak=$(sed -n 's/.*"peak_memory_bytes": \([0-9]*\).*/\1/p' lib100k.json 2>/dev/null)
if [ "$rc" -ne 0 ] || ! grep -q "by 3 exact pieces of 7" err.txt; then bad "100,000 guides within 4: exit $rc, $(grep -i 'guides\|error' err.txt)"; else ok; fi
if grep -qa __asan_init "$PROBESCAN"; then
    skip 1 sanitizer "shadow memory counts in a sanitizer build: the guide index's bound"
elif [ -z "$peak" ] || [ "$peak" -gt 400000000 ]; then bad "100,000 guides within 4 peaked at ${peak:-?} bytes, over the README's 400 MB"
else ok; fi
expect_fail "--exact-pieces 0" "--exact-pieces" count --exact-pieces 0 -m 2 -p lib.tsv lib.fa
expect_fail "--exact-pieces 5" "--exact-pieces" count --exact-pieces 5 -m 2 -p lib.tsv lib.fa
printf "ACGTACGTAC\n" >spacers.txt
expect_fail "bulges with --by-record" "--by-record" count --by-record --dna-bulge 1 --pam NGG -p spacers.txt pam.fa
printf 'pam.fa\nNNNNNNNNNGG\nACGTACGTNNN 2\n' >cof.txt
run locate --format cas-offinder -p cof.txt
if [ "$rc" -eq 0 ] && [ "$(tr '\n' '|' <out.txt)" = $'ACGTACGTNNN\tc\t0\tACGTACGTAGG\t+\t0|' ]; then ok; else bad "Cas-OFFinder file, its genome the input: $(cat out.txt err.txt | tr '\n' '|')"; fi
expect_fail "Cas-OFFinder file with --pam" "--pam" count --pam NGG -p cof.txt
# A Cas-OFFinder file is read as one whatever is wrong in its guide lines,
# the first included: a line without its mismatch column, or too short, is
# named (not the file read as a probe list, its genome line a probe).
printf 'pam.fa\nNNNNNNNNNGG\nACGTACGTNNN\nACGTACGTNNN\n' >cof_nolimit.txt
expect_fail "Cas-OFFinder guide lines without mismatches" "cof_nolimit.txt: line 3: a guide line" locate -p cof_nolimit.txt pam.fa
printf 'pam.fa\nNNNNNNNNNGG\nACGTACGTNN 2\nACGTACGTNNN 2\n' >cof_short.txt
expect_fail "a Cas-OFFinder file's first guide too short" "cof_short.txt: line 3: the guide is 10 long, the pattern 11" locate -p cof_short.txt
# Its limit column: digits, maybe after '+' (Cas-OFFinder's atoi takes
# them); a '-' or text after the digits is refused, naming the line.
printf 'pam.fa\nNNNNNNNNNGG\nACGTACGTNNN +2\n' >cof_plus.txt
run locate --format cas-offinder -p cof_plus.txt
if [ "$rc" -eq 0 ] && [ "$(tr '\n' '|' <out.txt)" = $'ACGTACGTNNN\tc\t0\tACGTACGTAGG\t+\t0|' ]; then ok; else bad "Cas-OFFinder limit '+2': $(cat out.txt err.txt | tr '\n' '|')"; fi
printf 'pam.fa\nNNNNNNNNNGG\nACGTACGTNNN -1\n' >cof_neg.txt
expect_fail "a Cas-OFFinder limit of -1" "cof_neg.txt: line 3: '-1'" locate -p cof_neg.txt pam.fa
printf 'pam.fa\nNNNNNNNNNGG\nACGTACGTNNN 2x\n' >cof_2x.txt
expect_fail "a Cas-OFFinder limit of 2x" "cof_2x.txt: line 3: '2x'" locate -p cof_2x.txt pam.fa
# -p - reads a Cas-OFFinder file through a pipe, as Cas-OFFinder reads '-'.
"$PROBESCAN" locate --format cas-offinder -p - <<<"$(cat cof.txt)" >out.txt 2>err.txt && cat cof.txt | "$PROBESCAN" locate --format cas-offinder -p - >out2.txt 2>>err.txt
rc=$?
if [ "$rc" -eq 0 ] && [ "$(tr '\n' '|' <out2.txt)" = $'ACGTACGTNNN\tc\t0\tACGTACGTAGG\t+\t0|' ] && cmp -s out.txt out2.txt; then ok; else bad "-p - of a Cas-OFFinder file: $(cat out2.txt err.txt | tr '\n' '|')"; fi
printf 'ACGTACGT\n' | "$PROBESCAN" locate -p - pam.fa >out.txt 2>err.txt
if [ "$?" -eq 0 ] && [ "$(wc -l <out.txt)" = 2 ]; then ok; else bad "-p - of a probe list: $(cat out.txt err.txt | tr '\n' '|')"; fi
# The limit column of name<TAB>sequence lines reads as Cas-OFFinder's:
# blanks around it and a '+' taken, a '-' refused naming the line.
printf 'g\tACGTACGT\t 2\nh\tACGTACGT\t+1\n' >limit_blank.tsv
run count -p limit_blank.tsv pam.fa
if [ "$rc" -eq 0 ] && [ "$(head -1 out.txt | cut -f6-)" = $'mm0\tmm1\tmm2' ] && grep -q "2 probes take their own" err.txt; then ok; else bad "limits ' 2' and '+1': $(cat out.txt err.txt | tr '\n' '|')"; fi
printf 'g\tACGTACGT\t-1\n' >limit_neg.tsv
expect_fail "a probe's limit of -1" "limit_neg.tsv: line 1" count -p limit_neg.tsv pam.fa
# A genome folder reads a FASTA file as INPUT reads it: after a byte-order
# mark, or blank lines.
mkdir -p gdir
printf '\357\273\277>chrA\nACGTACGTAGG\n' >gdir/a.fa
printf '\n\n>chrB\nTTACGTACGTCGG\n' >gdir/b.fa
printf 'gdir\nNNNNNNNNNGG\nACGTACGTNNN 0\n' >cofdir.txt
run locate -p cofdir.txt
if [ "$rc" -eq 0 ] && [ "$(cut -f1 out.txt | tr '\n' ' ')" = "chrA chrB " ] && ! grep -q 'passed over' err.txt; then ok
else bad "a genome folder of FASTA files after a BOM or blank lines: rc $rc, $(cat out.txt err.txt | tr '\n' '|')"; fi
printf 'acgtacgt\nacgtrcgt\n' >lower.txt
expect_fail "--format cas-offinder for protein" "protein" locate --format cas-offinder -a protein -p lower.txt pam.fa
# Lower-case IUPAC probes: the query and the site's case as Cas-OFFinder
# writes them; unnamed probes get no id column; a probe file through a pipe
# is read whole (it is no Cas-OFFinder file).
run locate --pam ngg --format cas-offinder -p lower.txt pam.fa
if [ "$rc" -eq 0 ] && [ "$(tr '\n' '|' <out.txt)" = $'ACGTACGTNNN\tc\t0\tACGTACGTAGG\t+\t0|ACGTRCGTNNN\tc\t0\tACGTACGTAGG\t+\t0|' ]; then ok; else bad "lower-case probes with --pam, cas-offinder rows: $(cat out.txt err.txt | tr '\n' '|')"; fi
run count --pam NGG --stats guides.json -p guides.tsv pam.fa
if [ "$rc" -eq 0 ] && grep -q '"index": "guides"' guides.json; then ok; else bad "--stats of a guide library does not say index guides: $(grep index guides.json)"; fi
run count -p <(cat guides.tsv) --pam NGG pam.fa
if [ "$rc" -eq 0 ] && [ "$(grep -c '^g[12]' out.txt)" = 2 ]; then ok; else bad "a probe file through a pipe: $(cat out.txt err.txt | tr '\n' '|')"; fi
awk 'BEGIN { s = ""; for (i = 0; i < 257; i++) s = s "A"; print s }' >long.txt
expect_fail "probe longer than the limit" long.txt count -p long.txt genome.fa
awk 'BEGIN { s = ""; for (i = 0; i < 256; i++) s = s "A"; print s }' >max.txt
run count -p max.txt genome.fa
if [ "$rc" -eq 0 ] && [ "$(tail -1 out.txt | cut -f 3)" = 0 ]; then ok; else bad "probe of the maximum length: status $rc"; fi

gzip -c big.fa >big.fa.gz
size=$(wc -c <big.fa.gz)
head -c $((size / 2)) big.fa.gz >cut.fa.gz
expect_fail "truncated gzip" cut.fa.gz count -p probes.tsv cut.fa.gz
"$PROBESCAN" count -p probes.tsv - <cut.fa.gz >out.txt 2>err.txt
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -lt 126 ] && [ ! -s out.txt ]; then ok; else bad "truncated gzip on stdin: status $rc"; fi

yeast=$DATA/yeast_S288C_R64-1-1.bgzf.fa.gz
if [ -n "$DATA" ] && [ -f "$yeast" ]; then
    head -c 1000000 "$yeast" >cut.bgzf.fa.gz
    expect_fail "truncated BGZF" cut.bgzf.fa.gz count -p probes.tsv cut.bgzf.fa.gz
    expect_fail "truncated BGZF, 2 threads" cut.bgzf.fa.gz count -t 2 -p probes.tsv cut.bgzf.fa.gz
    "$PROBESCAN" count -p probes.tsv - <cut.bgzf.fa.gz >out.txt 2>err.txt
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -lt 126 ] && [ ! -s out.txt ]; then ok; else bad "truncated BGZF on stdin: status $rc"; fi
else
    if [ -z "$DATA" ]; then skip 3 data "PS_DATA is not set: truncated-BGZF cases"; else
        skip 3 data "PS_DATA=$DATA has no $(basename "$yeast"): truncated-BGZF cases"
    fi
fi

# Plain gzip in three members cut at random points (`cat a.gz b.gz c.gz`),
# more compressed bytes than one read of the input buffer: the same table as
# the plain file, from a path and from standard input.
# The genome ships in fasta/; PS_DATA's copy is taken where it has one.
ecoli=$DATA/ecoli_K12_MG1655.fa.gz
[ -n "$DATA" ] && [ -f "$ecoli" ] || ecoli=$here/../fasta/ecoli_K12_MG1655.fa.gz
if [ -f "$ecoli" ]; then
    gzip -dc "$ecoli" >ecoli.fa
    n=$(wc -c <ecoli.fa)
    c1=$(((RANDOM * 32768 + RANDOM) % n))
    c2=$(((RANDOM * 32768 + RANDOM) % n))
    [ "$c1" -le "$c2" ] || { t=$c1; c1=$c2; c2=$t; }
    { head -c "$c1" ecoli.fa | gzip -c; tail -c +$((c1 + 1)) ecoli.fa | head -c $((c2 - c1)) | gzip -c
      tail -c +$((c2 + 1)) ecoli.fa | gzip -c; } >members.fa.gz
    "$PROBESCAN" count -q -p probes.tsv -o plain.tsv ecoli.fa 2>err.txt
    expect_ok "three gzip members cut at $c1 and $c2" plain.tsv count -q -p probes.tsv members.fa.gz
    "$PROBESCAN" count -q -p probes.tsv - <members.fa.gz >out.txt 2>err.txt
    if cmp -s out.txt plain.tsv && [ "$(wc -c <members.fa.gz)" -gt 1048576 ]; then ok
    else bad "three gzip members on standard input (cut at $c1 and $c2): $(head -2 err.txt)"; fi
else
    skip 2 data "no $(basename "$ecoli") in PS_DATA nor fasta/: gzip members"
fi

# Several inputs at once (-t 3: three reading threads): the same tables as
# one input after another, for totals, --by-file and --samples; a failed
# input is reported as the first failure in input order.
awk -v seed=$RANDOM 'BEGIN { srand(seed); split("ACGTN", b, "")
    for (f = 1; f <= 7; f++) {
        out = "multi" f (f % 3 == 0 ? ".fq" : ".fa")
        for (r = 1; r <= 1 + int(rand() * 30); r++) {
            len = int(rand() * 20000); s = ""
            for (i = 0; i < len; i++) { m = rand() < 0.01 ? 5 : 4; s = s b[1 + int(rand() * m) % m] }
            if (f % 3 == 0) { q = s; gsub(/./, "I", q); print "@m" f "_" r "\n" s "\n+\n" q > out }
            else print ">m" f "_" r "\n" s > out
        }
        close(out)
    }
}'
gzip multi2.fa
multi="multi1.fa multi2.fa.gz multi3.fq multi4.fa multi5.fa multi6.fq multi7.fa"
printf 'a\tmulti1.fa\nb\tmulti2.fa.gz\na\tmulti3.fq\nc\tmulti4.fa\nb\tmulti5.fa\nc\tmulti6.fq\nc\tmulti7.fa\n' >multi.samples
for args in "" "--by-file" "--samples multi.samples" "-s forward --by-file"; do
    # shellcheck disable=SC2086
    case $args in --samples*) ins= ;; *) ins=$multi ;; esac
    # shellcheck disable=SC2086
    "$PROBESCAN" count -q -t 1 $args -p probes.tsv -o one.tsv $ins 2>err.txt
    # shellcheck disable=SC2086
    expect_ok "seven inputs three at a time${args:+ ($args)}" one.tsv count -q -t 3 --stats multi.json $args -p probes.tsv $ins
    if grep -q '"readers": 3' multi.json; then ok; else bad "seven inputs at -t 3: --stats does not say 3 readers"; fi
done
cp cut.fa.gz multi_cut.fa.gz # big.fa, gzip, cut in half (above)
expect_fail "a truncated input among seven, three at a time" multi_cut.fa.gz count -q -t 3 -p probes.tsv \
    multi1.fa multi2.fa.gz multi3.fq multi_cut.fa.gz multi5.fa multi6.fq multi7.fa
expect_fail "two failed inputs: the first in input order" multi_missing.fa count -q -t 3 -p probes.tsv \
    multi1.fa multi_missing.fa multi3.fq multi4.fa multi_cut.fa.gz multi6.fq multi7.fa

printf '@r1\nACGT\n+\nIIII\n@r2\nACGTA\n+\nIIII\n' >mismatch.fq
expect_fail "FASTQ quality shorter than sequence" mismatch.fq count -p probes.tsv mismatch.fq
printf '@r1\nACGT\n+\nIIIII\n' >longqual.fq
expect_fail "FASTQ quality longer than sequence" longqual.fq count -p probes.tsv longqual.fq
printf '@r1\nACGT\nIIII\n@r2\nACGT\n+\nIIII\n' >noplus.fq
expect_fail "FASTQ missing '+'" noplus.fq count -p probes.tsv noplus.fq
printf '@r1\nACGT\n' >noplus_end.fq
expect_fail "FASTQ ending before '+'" noplus_end.fq count -p probes.tsv noplus_end.fq

cp "$PROBESCAN" binary.dat
expect_fail "binary file" binary.dat count -p probes.tsv binary.dat
printf 'Dear reader,\nthis is not a sequence file.\n' >letter.txt
expect_fail "non-sequence text" letter.txt count -p probes.tsv letter.txt
printf '>r1\nACGT\nAC7T\n' >digitseq.fa
expect_fail "digit in a sequence" digitseq.fa count -p probes.tsv digitseq.fa
: >empty.fa
gzip -c empty.fa >empty.fa.gz
printf 'name\tsequence\tcount\tforward\treverse\np1\tACG\t0\t0\t0\np2\tCGT\t0\t0\t0\np3\tTTT\t0\t0\t0\np4\tAAA\t0\t0\t0\np5\tGTA\t0\t0\t0\np6\tACG\t0\t0\t0\n' >zero.tsv
# An empty input is zero records, with one warning: one empty sample must
# not stop a workflow.
expect_warned() { # DESC EXPECTED_FILE WORD ARGS...: exit 0, that table, one warning naming WORD
    local desc=$1 want=$2 word=$3
    shift 3
    run "$@"
    if [ "$rc" -ne 0 ]; then bad "$desc: exit status $rc: $(head -2 err.txt)"
    elif ! cmp -s out.txt "$want"; then bad "$desc: wrong table"; diff "$want" out.txt | head -5
    elif [ "$(wc -l <err.txt)" -ne 1 ] || ! grep -q "^probescan: warning: .*$word" err.txt; then
        bad "$desc: want one warning naming $word: $(head -3 err.txt)"
    else ok; fi
}
expect_warned "input with no records" zero.tsv empty.fa count -p probes.tsv empty.fa
expect_warned "gzip input with no records" zero.tsv empty.fa.gz count -p probes.tsv empty.fa.gz
expect_warned "empty stdin" zero.tsv "empty input" count -p probes.tsv - </dev/null
expect_fail "bad second input after a good one" digitseq.fa count -p probes.tsv genome.fa digitseq.fa

# No-call and gap characters break windows as N does; CR-only and CRLF
# line ends and a byte-order mark read as plain LF text.
printf '>s1 first record\nACGTACGT..ACGT\n>s2\nacgtTTTT\n>s3\n' >dots.fa
run count -p probes.tsv genome.fa; cp out.txt plain.tsv
expect_ok "no-call dots" plain.tsv count -p probes.tsv dots.fa
tr '\n' '\r' <genome.fa >cr.fa
expect_ok "CR line ends" plain.tsv count -p probes.tsv cr.fa
sed 's/$/\r/' genome.fa >crlf.fa
expect_ok "CRLF line ends" plain.tsv count -p probes.tsv crlf.fa
printf '\357\273\277' | cat - genome.fa >bom.fa
expect_ok "byte-order mark" plain.tsv count -p probes.tsv bom.fa
# BGZF then plain gzip members, as `cat a.bgz b.gz` makes them.
if command -v bgzip >/dev/null; then
    head -2 genome.fa | bgzip -c >part1.gz
    tail -n +3 genome.fa | gzip -c >part2.gz
    cat part1.gz part2.gz >mixed.fa.gz
    expect_ok "BGZF then gzip members" plain.tsv count -p probes.tsv mixed.fa.gz
else
    skip 1 tool "bgzip not installed: BGZF-then-gzip case"
fi
# Unaligned SAM, as PacBio and ONT reads come: primary records, reverse
# ones turned back (s2 is stored reverse-complemented here).
printf '@HD\tVN:1.6\n' >reads.sam
printf 's1\t4\t*\t0\t0\t*\t*\t0\t0\tACGTACGTNNACGT\t*\n' >>reads.sam
printf 's2\t16\t*\t0\t0\t*\t*\t0\t0\tAAAAACGT\t*\n' >>reads.sam
printf 's2\t256\t*\t0\t0\t*\t*\t0\t0\tGGGGGGGG\t*\n' >>reads.sam
printf 's3\t4\t*\t0\t0\t*\t*\t0\t0\t*\t*\n' >>reads.sam
expect_ok "SAM reads" plain.tsv count -p probes.tsv reads.sam
# Other compressions: a message with the command that reads them.
if command -v bzip2 >/dev/null; then
    bzip2 -c genome.fa >genome.fa.bz2
    expect_fail "bzip2 input" "bzip2 -dc" count -p probes.tsv genome.fa.bz2
else
    skip 1 tool "bzip2 not installed"
fi
# Probes: a degenerate DNA probe is a DNA pattern, not a silent switch to
# protein; probes that disagree get a warning.
printf 'ACGTACGTAC\nACGTNCGTAC\n' >deg.txt
run count -p deg.txt genome.fa
if [ "$rc" -eq 0 ] && [ ! -s err.txt ] && head -1 out.txt | grep -q forward; then ok
else bad "degenerate DNA probe: $rc $(cat err.txt)"; fi
printf 'ACGTACGTAC\nMKVLAWHEKK\n' >mixed_probes.txt
run count -p mixed_probes.txt genome.fa
if [ "$rc" -eq 0 ] && grep -q '^probescan: warning: .*MKVLAWHEKK' err.txt && head -1 out.txt | grep -qv forward; then ok; else
    bad "probes that disagree: status $rc, no warning: $(head -2 err.txt)"
fi
# Outputs that would destroy an input, or each other, are refused before anything runs.
cp genome.fa victim.fa
expect_usage "-o naming the input" count -p probes.tsv -o victim.fa victim.fa
if cmp -s genome.fa victim.fa; then ok; else bad "-o naming the input changed it"; fi
expect_usage "--stats naming the probe file" count -p probes.tsv --stats probes.tsv genome.fa
expect_usage "-o and --stats the same" count -p probes.tsv -o same.out --stats same.out genome.fa
expect_usage "--stats - with the table on stdout" count -p probes.tsv --stats - genome.fa
# A --by-file column name cannot hold a tab.
cp genome.fa "$(printf 'tab\tname.fa')"
expect_usage "--by-file name with a tab" count --by-file -p probes.tsv "$(printf 'tab\tname.fa')"
# Default threads follow the CPU affinity.
if command -v taskset >/dev/null; then
    run count -p probes.tsv --stats aff.json -o aff.tsv genome.fa
    taskset -c 0 "$PROBESCAN" count -p probes.tsv --stats aff.json -o aff.tsv genome.fa 2>err.txt
    if grep -q '"threads": 1,' aff.json; then ok; else bad "taskset -c 0: $(grep threads aff.json)"; fi
else
    skip 1 tool "taskset not installed"
fi
# A probe set whose automaton cannot fit the memory allowed is refused up
# front, with the estimate, instead of growing until the machine swaps.
awk 'BEGIN { srand(3); for (i = 0; i < 10000; i++) { s = ""; for (j = 0; j < 256; j++) s = s substr("ACDEFGHIKLMNPQRSTVWY", 1 + int(rand() * 20) % 20, 1); print s } }' >bigprot.txt
if grep -qa __asan_init "$PROBESCAN"; then
    skip 1 sanitizer "ulimit -v case (shadow memory)"
else
    ( ulimit -v 400000; "$PROBESCAN" count -p bigprot.txt -o big.tsv genome.fa >out.txt 2>err.txt ); rc=$?
    if [ "$rc" -eq 1 ] && grep -q 'GB to build' err.txt && grep -q 'ulimit -v' err.txt && [ ! -e big.tsv ]; then ok; else
        bad "automaton beyond ulimit -v: status $rc: $(head -2 err.txt)"
    fi
fi

# Empty records and records shorter than k are fine.
printf '>a\n>b\nAC\n>c\nACGT\n' >short.fa
printf 'name\tsequence\tcount\tforward\treverse\npal\tACGT\t2\t1\t1\n' >short_want.tsv
expect_ok "empty and short records" short_want.tsv count -p pal.tsv short.fa

# An output directory that does not exist.
run count -p probes.tsv -o no/such/dir/out.tsv genome.fa
if [ "$rc" -ne 0 ] && [ "$rc" -lt 126 ] && grep -q 'no/such/dir' err.txt; then ok; else
    bad "-o into a missing directory: status $rc: $(head -2 err.txt)"
fi

# A GPU kernel that does not exist is refused up front, on any build,
# naming the kernels there are.
expect_usage "--kernel with an unknown name" count --kernel nosuch -p probes.tsv genome.fa
if grep -q "must be one of best, .*not 'nosuch'" err.txt; then ok; else bad "--kernel nosuch: $(cat err.txt)"; fi

# Outputs that are not regular files are written, never replaced: a FIFO
# (its reader gets the table), a symlink (its target does), /dev/stdout.
mkfifo out.fifo
cat out.fifo >fifo.txt &
reader=$!
run count -p probes.tsv -o out.fifo genome.fa
wait "$reader"
if [ "$rc" -eq 0 ] && [ -p out.fifo ] && cmp -s fifo.txt plain.tsv; then ok; else bad "-o FIFO: status $rc"; fi
echo old >real.tsv
ln -sf real.tsv link.tsv
run count -p probes.tsv -o link.tsv genome.fa
if [ "$rc" -eq 0 ] && [ -L link.tsv ] && cmp -s real.tsv plain.tsv; then ok; else bad "-o symlink: status $rc"; fi
"$PROBESCAN" count -p probes.tsv -o /dev/stdout genome.fa >stdout.txt 2>err.txt
if cmp -s stdout.txt plain.tsv; then ok; else bad "-o /dev/stdout: $(head -2 err.txt)"; fi
# Stopped by a signal: no temporary file left, the signal's exit status.
mkdir sigdir
for sig in INT TERM HUP; do
    # In a subshell whose stderr is dropped: the shell's own "Hangup" notice too.
    rc=$( {
        { echo '>s'; yes ACGTACGTTGCA | head -c 3000000000; } | "$PROBESCAN" count -q -t 1 -p probes.tsv -o sigdir/out.tsv - &
        pid=$!
        sleep 0.5
        kill -"$sig" "$pid"
        wait "$pid"
        echo $?
    } 2>/dev/null )
    if [ -z "$(ls -A sigdir)" ] && [ "$rc" -gt 128 ]; then ok; else bad "SIG$sig: status $rc, left $(ls -A sigdir | tr '\n' ' ')"; fi
done

# probescan version: what a bug report needs; --version stays bare.
run version
if [ "$rc" -eq 0 ] && grep -q '^htslib ' out.txt && grep -q '^CUDA ' out.txt && grep -q '^GPU architectures built: ' out.txt; then ok; else
    bad "version: status $rc: $(head -4 out.txt)"
fi
run --version
if [ "$rc" -eq 0 ] && [ "$(wc -l <out.txt)" -eq 1 ] && grep -qE '^[0-9]+\.[0-9]+' out.txt; then ok; else bad "--version: $(cat out.txt)"; fi
# -o NAME.gz writes gzip (BGZF), and merge reads it back.
run count -p probes.tsv -o gz_out.tsv.gz genome.fa
if [ "$rc" -eq 0 ] && gzip -t gz_out.tsv.gz 2>/dev/null && gzip -dc gz_out.tsv.gz | cmp -s - plain.tsv; then ok; else bad "-o .gz: status $rc"; fi
run merge -o merged_gz.tsv gz_out.tsv.gz plain.tsv
if [ "$rc" -eq 0 ] && [ "$(awk -F '\t' 'NR == 2 { print $3 }' merged_gz.tsv)" = "$(awk -F '\t' 'NR == 2 { print 2 * $3 }' plain.tsv)" ]; then ok; else
    bad "merge of a gzip table: status $rc: $(head -2 err.txt)"
fi

# The bash completion offers every long option the help lists.
comp=$here/../completions/probescan.bash
if [ -r "$comp" ]; then
    missing=
    for cmd in count locate merge summary; do
        for opt in $("$PROBESCAN" "$cmd" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
            grep -q -- "$opt" "$comp" || missing="$missing $cmd $opt"
        done
    done
    if [ -z "$missing" ] && bash -n "$comp"; then ok; else bad "completion lacks:$missing"; fi
else
    skip 1 file "completions/probescan.bash not found beside the tests"
fi

# --samples: one column per sample, its files summed; names as given.
printf 'sample\tfile\n# R1 and R2 of one sample\nsample A\tgenome.fa\nsample A\tdots.fa\nB\tcr.fa\n' >sheet.tsv
run count --by-file -p probes.tsv genome.fa dots.fa cr.fa
awk -F '\t' 'BEGIN { OFS = "\t" } NR == 1 { print "name", "sequence", "sample A", "B"; next } { print $1, $2, $3 + $4, $5 }' out.txt >sheet_want.tsv
expect_ok "--samples" sheet_want.tsv count --samples sheet.tsv -p probes.tsv
printf 'A\tgenome.fa\nA\tgenome.fa\n' >twice.tsv
expect_usage "--samples with a file twice" count --samples twice.tsv -p probes.tsv
printf 'A genome.fa\n' >notab.tsv
expect_usage "--samples without a tab" count --samples notab.tsv -p probes.tsv
expect_usage "--samples and an INPUT" count --samples sheet.tsv -p probes.tsv genome.fa

# -a auto: PROSITE syntax means protein (its letters are IUPAC codes too:
# read as DNA, these motifs found nothing in proteins).
printf '>p1\nMGYGKPGEAGLKSAGKST\n' >prot.fa
printf 'rossmann\tG-x-G-x(2)-G\nwalkerA\t[AG]-x(4)-G-K-[ST]\n' >motifs.tsv
printf 'name\tsequence\tcount\nrossmann\tG-x-G-x(2)-G\t1\nwalkerA\t[AG]-x(4)-G-K-[ST]\t1\n' >motifs_want.tsv
expect_ok "PROSITE motifs under -a auto are protein" motifs_want.tsv count -p motifs.tsv prot.fa
if [ -s err.txt ]; then bad "PROSITE motifs over protein: unexpected warning: $(head -2 err.txt)"; else ok; fi
# --by-record with windows and patterns of variable length in one set: every
# pattern counted per record (the windows were once left out).
printf '>p1\nMGYGKPGEAGLKSAGKSTGAG\n>p2\nGGAGSGKGAAG\n' >prot2.fa
printf 'rossmann\tG-x-G-x(2)-G\nshort\tG-x(1,2)-G\n' >mixed.tsv
printf 'input\trecord\tname\tsequence\tcount\nprot2\tp1\trossmann\tG-x-G-x(2)-G\t1\nprot2\tp1\tshort\tG-x(1,2)-G\t4\nprot2\tp2\trossmann\tG-x-G-x(2)-G\t1\nprot2\tp2\tshort\tG-x(1,2)-G\t4\n' >mixed_byrec.tsv
expect_ok "--by-record, windows and variable patterns" mixed_byrec.tsv count --by-record -p mixed.tsv prot2.fa
# A DNA run over protein input warns, naming the input.
printf 'p\tACGTA\n' >dnaprobe.tsv
run count -p dnaprobe.tsv prot.fa
if [ "$rc" -eq 0 ] && grep -q 'prot.fa.*not A, C, G, T, U or N.*-a protein' err.txt; then ok; else
    bad "DNA probes over protein input: no warning (status $rc): $(head -2 err.txt)"; fi
# PROSITE patterns (protein under auto) over DNA input warn, pointing to -a dna.
awk 'BEGIN { srand(7); print ">chr"; for (i = 0; i < 600; i++) printf "%s", substr("ACGT", 1 + int(rand() * 4) % 4, 1); print "" }' >dna600.fa
printf 'v\tA-x(0,2)-C\n' >dnapat.tsv
run count -p dnapat.tsv dna600.fa
if [ "$rc" -eq 0 ] && grep -q 'dna600.fa looks like DNA.*-a dna' err.txt; then ok; else
    bad "PROSITE pattern over DNA: no warning (status $rc): $(head -2 err.txt)"; fi
run count -a dna -p dnapat.tsv dna600.fa
if [ "$rc" -eq 0 ] && ! [ -s err.txt ]; then ok; else bad "-a dna over DNA: status $rc, $(head -2 err.txt)"; fi
# Peptides over DNA warn of what they are, not of PROSITE patterns.
printf 'pep1\tMKVLAAGIW\npep2\tMKVLA\n' >peptides.tsv
run count -p peptides.tsv dna600.fa
if [ "$rc" -eq 0 ] && grep -q 'dna600.fa looks like DNA.*peptides' err.txt && ! grep -q PROSITE err.txt; then ok; else
    bad "peptides over DNA: status $rc: $(head -2 err.txt)"; fi
# A thread count beyond what is started is said, in one line.
run count -t 4096 -p probes.tsv genome.fa
if [ "$rc" -eq 0 ] && [ "$(grep -c -- '-t 4096: .* threads started' err.txt)" = 1 ]; then ok; else
    bad "-t 4096 capped without a word: status $rc: $(head -2 err.txt)"; fi

# A variable-length DNA pattern counts once per start on each strand, so a
# sequence and its reverse complement give the same count (fuzznuc: 3, 3).
printf '>x\nGTTT\n' >gttt.fa
printf '>y\nAAAC\n' >aaac.fa
for f in gttt.fa aaac.fa; do
    run count -a dna -p dnapat.tsv "$f"
    got=$(awk -F '\t' 'NR == 2 { print $3 }' out.txt)
    if [ "$rc" -eq 0 ] && [ "$got" = 3 ]; then ok; else bad "A-x(0,2)-C on $f: count '$got', want 3 (status $rc)"; fi
done
printf 'x\t0\t2\tv\t0\t-\nx\t0\t3\tv\t0\t-\nx\t0\t4\tv\t0\t-\n' >gttt_want.bed
expect_ok "locate: minus-strand sites of a variable pattern" gttt_want.bed locate -a dna -p dnapat.tsv gttt.fa
# Random sequences: count(X) = count(revcomp(X)) for anchored and variable patterns.
awk 'BEGIN { srand(11); for (r = 0; r < 20; r++) { printf ">r%d\n", r; n = 5 + int(rand() * 60)
     for (i = 0; i < n; i++) printf "%s", substr("ACGTN", 1 + int(rand() * 4.2), 1); print "" } }' >fw.fa
awk '/^>/ { print; next } { s = ""; for (i = length($0); i > 0; i--) { c = substr($0, i, 1)
     s = s (c == "A" ? "T" : c == "C" ? "G" : c == "G" ? "C" : c == "T" ? "A" : c) } print s }' fw.fa >rc.fa
printf 'a\tA-x(0,2)-C\nb\t<G-x(1,3)-[AT]\nc\t[<C]-x(0,1)-G>\nd\tT-x(2)-[AG>]\n' >vpats.tsv
"$PROBESCAN" count -a dna -m 1 -p vpats.tsv fw.fa >fw.tsv 2>/dev/null
"$PROBESCAN" count -a dna -m 1 -p vpats.tsv rc.fa >rc.tsv 2>/dev/null
if [ -s fw.tsv ] && awk -F '\t' 'BEGIN { OFS = "\t" } { print $1, $3, $6, $7 }' fw.tsv | cmp -s - <(awk -F '\t' 'BEGIN { OFS = "\t" } { print $1, $3, $6, $7 }' rc.tsv); then ok; else
    bad "variable DNA patterns: counts on a file and on its reverse complement differ"; fi

# A primer sheet's header row is no probe (and must not make the rest protein).
printf 'fwd\tGTGYCAGCMGCCGCGGTAA\nrev\tGGACTACHVGGGTWTCTAAT\n' >primers.tsv
"$PROBESCAN" count -p primers.tsv genome.fa >primers_want.tsv 2>/dev/null
for hdr in 'name\tsequence' 'Name\tSequence' 'id\tseq' 'primer\tForward primer (5-3)' 'sequence'; do
    { printf "$hdr\n"; cat primers.tsv; } >hdr.tsv
    run count -p hdr.tsv genome.fa
    if [ "$rc" -eq 0 ] && cmp -s out.txt primers_want.tsv && ! [ -s err.txt ]; then ok; else
        bad "header row '$hdr' in a primer sheet: status $rc, $(head -2 err.txt; head -3 out.txt)"; fi
done
# ... but a first probe that merely starts like a title is a probe.
printf 'pep1\tSEQVLK\npep2\tS-E-Q\n' >peps.tsv
run count -a protein -p peps.tsv prot.fa
if [ "$rc" -eq 0 ] && [ "$(wc -l <out.txt)" -eq 3 ]; then ok; else bad "SEQVLK as a first probe: status $rc, $(cat out.txt)"; fi

# One file under two spellings is read twice: refused (count, locate, --samples).
expect_usage "count a.fa ./a.fa" count -p probes.tsv genome.fa ./genome.fa
ln -sf genome.fa genome_link.fa
expect_usage "count a file and a link to it" count -p probes.tsv genome.fa genome_link.fa
expect_usage "locate a.fa a.fa" locate -p probes.tsv genome.fa genome.fa
printf 'A\tgenome.fa\nA\t./genome.fa\nB\t%s/genome.fa\n' "$PWD" >spell.tsv
expect_usage "--samples with one file spelt three ways" count --samples spell.tsv -p probes.tsv
if grep -q "one file" err.txt; then ok; else bad "--samples one file twice: message '$(head -1 err.txt)'"; fi
# Standard input can be read once.
expect_usage "count -p - -" count -p - - <probes.tsv
expect_usage "count - -" count -p probes.tsv - - <genome.fa

# -o may not name the sample sheet; nor be empty.
printf 'A\tgenome.fa\n' >keep.tsv
cp keep.tsv keep.bak
expect_usage "-o naming the --samples sheet" count --samples keep.tsv -p probes.tsv -o keep.tsv
if cmp -s keep.tsv keep.bak; then ok; else bad "-o naming the --samples sheet: the sheet was changed"; fi
expect_usage "-o ''" count -p probes.tsv -o '' genome.fa
expect_usage "--stats ''" count -p probes.tsv --stats '' genome.fa

# Sheets and probe files: gzip read, bzip2 refused with the command to use.
gzip -c keep.tsv >keep.tsv.gz
run count --samples keep.tsv.gz -p probes.tsv
if [ "$rc" -eq 0 ] && [ "$(head -1 out.txt | cut -f3)" = A ]; then ok; else bad "a gzipped sample sheet: status $rc, $(head -2 err.txt)"; fi
if command -v bzip2 >/dev/null; then
    bzip2 -c probes.tsv >probes.tsv.bz2
    expect_fail "a bzip2 probe file" "bzip2 -dc" count -p probes.tsv.bz2 genome.fa
    bzip2 -c keep.tsv >keep.tsv.bz2
    expect_fail "a bzip2 sample sheet" "bzip2 -dc" count --samples keep.tsv.bz2 -p probes.tsv
else
    skip 2 tool "bzip2 is not installed"
fi

# Messages that say what is wrong.
printf 'big\tA-x(0,1000)-C\n' >bigrep.tsv
expect_fail "x(0,1000)" "longer than a pattern may be" count -a dna -p bigrep.tsv genome.fa
printf 'ID   SOME_DOMAIN; MATRIX.\nAC   PS50000;\nMA   /GENERAL_SPEC: ALPHABET=%s; LENGTH=1;\n//\n' "'ACDEFGHIKLMNPQRSTVWY'" >matrix.dat
run count -p matrix.dat prot.fa
if [ "$rc" -ne 0 ] && [ ! -s out.txt ] && grep -q 'profile SOME_DOMAIN skipped: 0 match positions where LENGTH=1' err.txt &&
    grep -q 'no PATTERN entries and no MATRIX entry that could be read' err.txt; then ok
else bad "a PROSITE file of one unreadable MATRIX entry: rc $rc, $(cat err.txt)"; fi
# A profile (two positions, C then H) scored as pfscanV3 -n scores it: the
# residues are the letters ('-' and '.' left out), so p3 has CH at 3-4.
m1=$(printf 'ACDEFGHIKLMNPQRSTVWY' | sed 's/./&\n/g' | awk 'NF { printf "%s%s", (n++ ? "," : ""), ($1 == "C" ? 10 : -5) }')
m2=$(printf 'ACDEFGHIKLMNPQRSTVWY' | sed 's/./&\n/g' | awk 'NF { printf "%s%s", (n++ ? "," : ""), ($1 == "H" ? 10 : -5) }')
{
    echo "ID   TEST_PROFILE; MATRIX."
    echo "AC   PS99905;"
    echo "MA   /GENERAL_SPEC: ALPHABET='ACDEFGHIKLMNPQRSTVWY'; LENGTH=2;"
    echo "MA   /DISJOINT: DEFINITION=PROTECT; N1=1; N2=2;"
    echo "MA   /NORMALIZATION: MODE=1; FUNCTION=LINEAR; R1=0.5; R2=0.1;"
    echo "MA   /CUT_OFF: LEVEL=0; SCORE=15; N_SCORE=2.0; MODE=1;"
    echo "MA   /DEFAULT: D=-20; I=-20; B1=0; E1=0; MI=-100; MD=-100; IM=-100; DM=-100;"
    echo "MA   /M: SY='C'; M=$m1;"
    echo "MA   /M: SY='H'; M=$m2;"
    echo "//"
} >profile.dat
printf '>p1\nMKCAHCAAHCAAAH\n>p2\nAMKCHKDEL\n>p3\nMK-CH.KEEL\n' >pprot.fa
run locate --format pff -p profile.dat pprot.fa
want=$(printf 'p2\t4\t5\tPS99905\t1\t-1\t20\t2.500\t0\np3\t3\t4\tPS99905\t1\t-1\t20\t2.500\t0\n')
if [ "$rc" -eq 0 ] && [ "$(cat out.txt)" = "$want" ]; then ok; else bad "a profile's pff rows: rc $rc, $(cat out.txt err.txt)"; fi
run count -p profile.dat pprot.fa
want=$(printf 'name\tid\tsequence\tcount\nPS99905\tTEST_PROFILE\tCH\t2\n')
if [ "$rc" -eq 0 ] && [ "$(cat out.txt)" = "$want" ]; then ok; else bad "a profile's count row: rc $rc, $(cat out.txt err.txt)"; fi
awk '/^ID/ { keep = !/TEST_MATRIX/ } keep' motifs.dat | cat - profile.dat >both.dat
run locate --format bed -p both.dat pprot.fa
if [ "$rc" -eq 0 ] && [ "$(grep -c PS99905 out.txt)" -eq 2 ] && grep -q '^p2	3	5	PS99905	20	+$' out.txt; then ok
else bad "patterns and a profile in one file, bed: rc $rc, $(cat out.txt err.txt)"; fi
run locate --format bed --no-profiles -p both.dat pprot.fa
if [ "$rc" -eq 0 ] && ! grep -q PS99905 out.txt && grep -q PS99901 out.txt; then ok; else bad "--no-profiles: $(cat out.txt)"; fi
run locate --format pff --profiles-only -p both.dat pprot.fa
if [ "$rc" -eq 0 ] && [ "$(cut -f4 out.txt | sort -u)" = PS99905 ]; then ok; else bad "--profiles-only: $(cat out.txt err.txt)"; fi
run locate --format pff --max-hits 1 --stats pstats.json -p both.dat pprot.fa
if [ "$rc" -eq 0 ] && [ "$(grep -c PS99905 out.txt)" -eq 1 ] && grep -q -- '--max-hits 1: 1 profile had more matches; 1 match not reported' err.txt &&
    grep -q '"profile_matches_written": 1' pstats.json && grep -q '"profile_matches_left_out": 1' pstats.json; then ok
else bad "--max-hits and --stats with a profile: rc $rc, $(cat err.txt pstats.json)"; fi
expect_fail "tsv with patterns and profiles" "different columns" locate --format tsv -p both.dat pprot.fa
expect_fail "patterns and profiles from standard input" "read each input twice" locate -p both.dat - <pprot.fa
run locate --format pff --profiles-only -p both.dat - <pprot.fa
if [ "$rc" -eq 0 ] && [ "$(wc -l <out.txt)" -eq 2 ]; then ok; else bad "--profiles-only from standard input: $(cat out.txt err.txt)"; fi
expect_fail "gff rows of a profile" "bed, pff or tsv" locate --format gff -p profile.dat pprot.fa
run locate --level 1 -p profile.dat pprot.fa
if [ "$rc" -ne 0 ] && grep -q 'profile TEST_PROFILE skipped: no CUT_OFF of LEVEL=1' err.txt &&
    grep -q -- '--level: profile.dat holds no profile that could be read' err.txt; then ok
else bad "--level of no cut-off: rc $rc, $(cat err.txt)"; fi
expect_fail "--level out of range" "from -99 to 99" count --level 100 -p profile.dat pprot.fa
expect_fail "profiles by record" "totals" count --by-record -p profile.dat pprot.fa
# -m with patterns and profiles: every row has the header's fields (a
# profile's matches in mm0, its other levels 0), so that the table reads
# back; -m with profiles alone is refused (they are scored, not mismatched).
run count -q -m 1 -p both.dat pprot.fa
if [ "$rc" -eq 0 ] && [ "$(awk -F'\t' '{ print NF }' out.txt | sort -u)" = 6 ] &&
    grep -q $'^PS99905\tTEST_PROFILE\tCH\t2\t2\t0$' out.txt; then ok
else bad "count -m 1 of patterns and a profile: rows unlike the header: rc $rc, $(cat out.txt err.txt)"; fi
expect_fail "-m with profiles alone (count)" "-m" count -m 1 -p profile.dat pprot.fa
expect_fail "-m with profiles alone (locate)" "-m" locate -m 1 -p profile.dat pprot.fa
expect_fail "-m 0 with --profiles-only" "-m" count -m 0 --profiles-only -p both.dat pprot.fa
# The refusals of patterns and profiles together name --no-profiles.
expect_fail "tsv with patterns and profiles: --no-profiles" "--no-profiles" locate --format tsv -p both.dat pprot.fa
expect_fail "gff with patterns and profiles: --no-profiles" "--no-profiles" locate --format gff -p both.dat pprot.fa
expect_fail "--by-record with patterns and profiles: --no-profiles" "--no-profiles" count --by-record -p both.dat pprot.fa
run locate --format tsv --no-profiles -p both.dat pprot.fa
if [ "$rc" -eq 0 ] && head -1 out.txt | grep -q '^input' && grep -q PS99901 out.txt; then ok
else bad "locate --format tsv --no-profiles: rc $rc, $(cat err.txt)"; fi
# --skip-frequent over patterns all flagged: nothing to match, as ps_scan -s
# (exit 0; count's table its header, locate no row); with a profile beside
# them, a run of the profile alone.
awk '/^ID/ { keep = /TEST_ONE/ } keep { print } keep && /^AC/ { print "CC   /SKIP-FLAG=TRUE;" }' motifs.dat >flagged.dat
run count --skip-frequent -p flagged.dat pprot.fa
if [ "$rc" -eq 0 ] && [ "$(cat out.txt)" = "$(printf 'name\tid\tsequence\tcount')" ] && grep -q 'no pattern left' err.txt; then ok
else bad "count --skip-frequent, every pattern flagged: rc $rc, $(cat out.txt err.txt)"; fi
run locate --skip-frequent -p flagged.dat pprot.fa
if [ "$rc" -eq 0 ] && [ ! -s out.txt ]; then ok; else bad "locate --skip-frequent, every pattern flagged: rc $rc, $(cat out.txt err.txt)"; fi
cat flagged.dat profile.dat >flagged_prof.dat
run count --skip-frequent -p flagged_prof.dat pprot.fa
if [ "$rc" -eq 0 ] && [ "$(cat out.txt)" = "$(printf 'name\tid\tsequence\tcount\nPS99905\tTEST_PROFILE\tCH\t2')" ]; then ok
else bad "count --skip-frequent, flagged patterns and a profile: rc $rc, $(cat out.txt err.txt)"; fi

# --by-file over many inputs with a huge -t: memory stays bounded (it once
# grew with the square of -t: 40 tiny files at -t 4096 took 3.7 GB).
mkdir -p tiny
for i in $(seq 1 40); do printf '>r%d\nACGTACGTTTGACCAGGT\n' "$i" >tiny/f$i.fa; done
if command -v /usr/bin/time >/dev/null 2>&1 && [ -z "${PS_SANITIZER:-}" ]; then
    /usr/bin/time -f '%M' -o rss.txt "$PROBESCAN" count --by-file -t 4096 -p probes.tsv tiny/*.fa >out.txt 2>err.txt
    rc=$?
    "$PROBESCAN" count --by-file -t 1 -p probes.tsv tiny/*.fa >want.txt 2>/dev/null
    rss=$(tail -1 rss.txt)
    if [ "$rc" -eq 0 ] && cmp -s out.txt want.txt && [ "${rss:-999999999}" -lt 400000 ]; then ok; else
        bad "--by-file -t 4096 over 40 files: status $rc, peak ${rss:-?} KB (bound 400 MB)"; fi
else
    skip 1 tool "/usr/bin/time is not installed, or a sanitizer build (its memory is its own)"
fi

# Aligned CRAM without its reference: the message says so and how to give it.
if command -v samtools >/dev/null; then
    mkdir -p cram/empty
    awk 'BEGIN { srand(5); print ">chr1"; for (i = 0; i < 400; i++) printf "%s", substr("ACGT", 1 + int(rand() * 4) % 4, 1); print "" }' >cram/ref.fa
    seq=$(sed -n 2p cram/ref.fa)
    printf '@HD\tVN:1.6\tSO:coordinate\n@SQ\tSN:chr1\tLN:400\nr1\t0\tchr1\t11\t60\t30M\t*\t0\t0\t%s\t*\n' "${seq:10:30}" >cram/a.sam
    printf 'p\t%s\n' "${seq:12:10}" >cram/p.tsv
    if samtools view -C -T cram/ref.fa -o cram/a.cram cram/a.sam 2>/dev/null; then
        mv cram/ref.fa cram/gone.fa && rm -f cram/ref.fa.fai
        REF_PATH="$PWD/cram/empty/%s" REF_CACHE="$PWD/cram/empty/%s" run count -p cram/p.tsv cram/a.cram
        if [ "$rc" -ne 0 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "needs the reference.*REF_PATH" err.txt; then ok; else
            bad "aligned CRAM without its reference: status $rc: $(head -2 err.txt)"; fi
    else
        skip 1 tool "samtools could not write CRAM"
    fi
else
    skip 1 tool "samtools is not installed (Debian: samtools)"
fi

# The input sample behind the alphabet warning never reads a pipe the run
# then reads: <(...) gives the same counts as the file.
run count -p motifs.tsv <(cat prot.fa)
if [ "$rc" -eq 0 ] && cmp -s out.txt motifs_want.tsv; then ok; else bad "PROSITE motifs over <(cat prot.fa): status $rc, $(head -3 out.txt)"; fi

# Sample and --by-file columns may not take the tables' own titles.
printf 'count\tgenome.fa\n' >reserved.tsv
expect_usage "--samples with a sample called count" count --samples reserved.tsv -p probes.tsv
cp genome.fa forward.fa
expect_usage "--by-file over forward.fa" count --by-file -p probes.tsv forward.fa genome.fa
# --samples - reads standard input: nothing else may.
expect_usage "--samples - with -p -" count --samples - -p - <keep.tsv
printf 'A\t-\n' >stdin_sheet.tsv
expect_usage "--samples - naming -" count --samples - -p probes.tsv <stdin_sheet.tsv

echo "cli.sh: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
