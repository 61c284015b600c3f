#!/usr/bin/env bash
# profiles.sh - PROSITE profiles (MATRIX entries) against pfscanV3
# (pftools 3, Debian: pftools), run with --no-heuristic (-n): its prefilter
# can only drop matches. `locate --format pff` rows must equal pfscanV3's
# (-o 7 rows, with the level of its -o 5 rows, one thread so the two list
# the same matches in the same order): sequence, range, profile range,
# raw score and level exactly, the normalised score to its 3 printed
# decimals; `count`'s row per profile must equal pfscanV3's matches.
#
#   1. random profiles (tests/profgen.py: every key pftools reads, '*'
#      scores, implied lines, protected ranges, levels) over proteins that
#      hold stretches like them; fresh seed each run (PS_SEED repeats one).
#   2. the MATRIX entries of prosite_r14.dat over a seeded sample of
#      UniProt proteins (PS_DATA: prosite_r14.dat, uniprot_20k.fa.gz).
#      pfscanV3 refuses CUB (no normalisation) and LIM_DOMAIN_2 (two
#      level-0 cut-offs; one refused entry stops its run), and cannot
#      read GLOBIN and HSP20's GLE_ZSCORE normalisation (a continued
#      NORMALIZATION line): those are left out of its file, HSP20's raw
#      rows compared. RAS_GTPASE_ACTIV_2 has SCORE=0 with N_SCORE=6.5
#      (pfscanV3 reports every alignment of score 0 or more there):
#      pfscanV3 is given SCORE=361, the raw cut-off probescan derives.
#   3. a profile whose search never ended (tests/fuzz/endless.dat): the
#      1,023 matches a pair that pfscanV3 keeps, in bounded time and memory.
#
# A sequence on which pfscanV3 stops with an internal error (an illegal
# alignment of its own) is set aside and said.
#
#   bash tests/profiles.sh ./probescan
#
# Ends with "profiles.sh: N passed, N failed, N skipped".
set -u
export LC_ALL=C
bin=${1:-./probescan}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
[ -x "$bin" ] || { echo "profiles.sh: $bin is not an executable (build it with make)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
DATA=${PS_DATA:-}
case $DATA in "" | /*) ;; *) DATA=$PWD/$DATA ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/probescan-profiles.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }
# skip KIND REASON: one group of checks not run, in run.sh's form.
skip() { echo "profiles.sh: 1 skipped ($1: $2)"; skipped=$((skipped + 1)); }
finish() {
    echo "profiles.sh: $passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
}

# The real data's files that are missing, named in its skip whatever else is.
missing=
for f in prosite_r14.dat uniprot_20k.fa.gz; do
    [ -n "$DATA" ] && [ -r "$DATA/$f" ] || missing="$missing${missing:+, }$f"
done
if ! command -v pfscanV3 > /dev/null; then
    skip tool "random profiles: pfscanV3 not found (Debian: apt install pftools)"
    if [ -n "$missing" ]; then skip data "PS_DATA${DATA:+=$DATA} has no $missing: prosite_r14.dat profiles"
    else skip tool "prosite_r14.dat profiles: pfscanV3 not found (Debian: apt install pftools)"; fi
    finish
    exit
fi
if ! command -v python3 > /dev/null; then
    skip tool "random profiles: python3 not found"
fi
seed=${PS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "profiles.sh: seed $seed (PS_SEED=$seed repeats this run)"

# pfscanV3's rows of profiles $1 over proteins $2 as pff rows (level from
# its -o 5 rows), sequences it stopped on left out; those go to $3. Its -o 5
# run can crash after such a stop (seen: a segmentation fault), so both runs
# are made again without those sequences until none is stopped on.
v3_pff() {
    : > "$3"
    input=$2
    for round in 1 2 3; do
        pfscanV3 -n -t 1 -o 7 "$1" "$input" > v3.o7 2> v3.err7
        # the sequences it stopped on: the header line after each error line
        awk '/Internal error xalip/ { if ((getline h) > 0) { sub(/^>/, "", h); split(h, w, /[ \t]/); print w[1] } }' \
            v3.err7 v3.o7 > v3.stop
        [ -s v3.stop ] || break
        sort -u v3.stop "$3" > v3.all && mv v3.all "$3"
        awk 'NR == FNR { s[$1] = 1; next } /^>/ { h = substr($1, 2); keep = !(h in s) } keep' "$3" "$2" > v3.in.fa
        input=v3.in.fa
    done
    pfscanV3 -n -t 1 -o 5 "$1" "$input" > v3.o5 2> /dev/null
    grep '^L=' v3.o5 | awk '{ sub(/^L=/, "", $1); print $1 }' > v3.levels
    grep -v '^Thread\|^ *Alignement\|^Error' v3.o7 | awk -F'\t' 'NF >= 9' > v3.rows
    if [ "$(wc -l < v3.rows)" -ne "$(wc -l < v3.levels)" ]; then
        echo "profiles.sh: pfscanV3's -o 7 and -o 5 rows differ in number" >&2
        return 1
    fi
    paste v3.rows v3.levels | awk -F'\t' -v OFS='\t' '{ split($1, a, "|"); ns = $8 == "inf" ? "inf" : sprintf("%.3f", $8);
        print $4, $5, $6, a[1], $2, $3, $7, ns, $11 }'
}

# Rows equal, the normalised score within its last printed digit.
same_pff() { # got want what
    sort "$1" > got.s
    sort "$2" > want.s
    if awk -F'\t' 'NR == FNR { g[NR] = $0; n = NR; next }
        { split(g[FNR], x, "\t"); for (i = 1; i <= 9; i++) if (i != 8 && x[i] != $i) { bad = 1 }
          if ($8 != "inf" && (x[8] - $8 > 0.0011 || $8 - x[8] > 0.0011)) bad = 1 }
        END { if (FNR != n) bad = 1; exit bad }' got.s want.s; then ok; else
        bad "$3: $(diff got.s want.s | grep -c '^[<>]') rows differ ($(wc -l < got.s) against $(wc -l < want.s))"
        diff got.s want.s | head -6 | sed 's/^/    /'
    fi
}

compare() { # profiles(probescan) profiles(pfscanV3) proteins what
    if ! v3_pff "$2" "$3" stopped.txt > want.pff; then bad "$4: pfscanV3 failed"; return; fi
    if [ -s stopped.txt ]; then
        echo "  $4: pfscanV3 stopped with an internal error on $(wc -l < stopped.txt) sequence(s), set aside: $(head -3 stopped.txt | tr '\n' ' ')"
        awk -F'\t' 'NR == FNR { s[$1] = 1; next } !($1 in s)' stopped.txt want.pff > w && mv w want.pff
    fi
    if ! "$bin" locate --format pff -p "$1" "$3" > got.pff 2> got.err; then
        bad "$4: probescan locate failed: $(head -2 got.err)"
        return
    fi
    [ -s stopped.txt ] && awk -F'\t' 'NR == FNR { s[$1] = 1; next } !($1 in s)' stopped.txt got.pff > g && mv g got.pff
    same_pff got.pff want.pff "$4: locate --format pff against pfscanV3 -n"
    if "$bin" count -p "$1" "$3" > got.tsv 2> /dev/null; then
        awk -F'\t' 'NR == FNR { n[$4]++; next } FNR > 1 && ($1 in n || $4 > 0) { print $1, $4 + 0, n[$1] + 0 }' \
            want.pff got.tsv | awk '$2 != $3' > count.diff
        if [ -s stopped.txt ]; then ok; elif [ ! -s count.diff ]; then ok; else
            bad "$4: count differs for $(wc -l < count.diff) profiles"
            head -5 count.diff | sed 's/^/    /'
        fi
    else
        bad "$4: probescan count failed"
    fi
}

# 1. Random profiles.
if command -v python3 > /dev/null; then
    python3 "$here/profgen.py" "$seed" 40 400 rnd.dat rnd.fa
    compare rnd.dat rnd.dat rnd.fa "random profiles (seed $seed)"
fi

# 2. PROSITE r14 over UniProt proteins.
if [ -n "$missing" ]; then
    skip data "PS_DATA${DATA:+=$DATA} has no $missing: prosite_r14.dat profiles"
else
    awk '/^ID /{ buf = ""; mat = / MATRIX/ } { buf = buf $0 "\n" } /^\/\//{ if (mat) printf "%s", buf; mat = 0 }' \
        "$DATA/prosite_r14.dat" > r14.dat
    awk '/^ID /{ buf = ""; mat = / MATRIX/; skip = ($2 ~ /^(CUB|LIM_DOMAIN_2|GLOBIN);$/) }
         { buf = buf $0 "\n" } /^\/\//{ if (mat && !skip) printf "%s", buf; mat = 0 }' "$DATA/prosite_r14.dat" |
        sed 's/LEVEL=0; SCORE=0; N_SCORE=6.5; MODE=1;/LEVEL=0; SCORE=361; N_SCORE=6.5; MODE=1;/' > r14.v3.dat
    gzip -dc "$DATA/uniprot_20k.fa.gz" | awk -v seed="$seed" 'BEGIN { srand(seed % 2147483647) }
        /^>/ { keep = rand() < 0.05 } keep' > sample.fa
    # GLOBIN: probescan only; CUB and LIM_DOMAIN_2 are said and skipped.
    awk '/^ID /{ buf = ""; skip = ($2 ~ /^(CUB|LIM_DOMAIN_2|GLOBIN);$/) } { buf = buf $0 "\n" }
         /^\/\//{ if (!skip) printf "%s", buf }' r14.dat > r14.cmp.dat
    compare r14.cmp.dat r14.v3.dat sample.fa "prosite_r14.dat profiles, $(grep -c '>' sample.fa) UniProt proteins"
    "$bin" locate --format pff -p r14.dat sample.fa > /dev/null 2> warn.txt
    # probescan reads CUB (raw scores only) and refuses LIM_DOMAIN_2 (two
    # level-0 cut-offs) with a line, going on with the rest.
    if ! grep -q "profile CUB skipped" warn.txt && grep -q "profile LIM_DOMAIN_2 skipped: two CUT_OFF lines of LEVEL=0" warn.txt; then
        ok
    else
        bad "CUB read and LIM_DOMAIN_2 refused with a line: $(grep 'CUB\|LIM_DOMAIN_2' warn.txt | head -2)"
    fi
fi

# 3. A profile whose search accepts the same match again and again (its
#    acceptance locks no new residue): pfscanV3 stops at 1,023 matches of
#    a (sequence, profile) pair with a warning; so must probescan, with
#    the same rows, in bounded time and memory (4 GB of address space).
printf '>g\nG\n>h\nAG\n>i\nGAAAG\n' > endless.fa
if (ulimit -v 4000000; timeout 60 "$bin" locate --format pff -p "$here/fuzz/endless.dat" endless.fa > /dev/null \
    2> endless.err); then
    ok
    if grep -q "warning: endless.fa: 3 (record, profile) pairs reached 1023 matches" endless.err; then ok; else
        bad "endless profile: no warning that the search stopped at 1023 matches: $(head -2 endless.err)"
    fi
    compare "$here/fuzz/endless.dat" "$here/fuzz/endless.dat" endless.fa "a profile that matches at one residue without end"
else
    bad "endless profile: locate did not end within 60 s and 4 GB"
fi
finish
