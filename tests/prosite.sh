#!/usr/bin/env bash
# prosite.sh - PROSITE patterns against ps_scan.pl (pftools), the reference
# scanner: it is what InterProScan runs for PROSITE patterns, so its rules
# for which matches are reported (greedy ends, no included matches, the X
# limit, skip flags, overlaps and their options) are the ones users compare
# with. Every PATTERN entry of prosite_r14.dat over a seeded sample of
# UniProt proteins (all records with B or Z, a share of those with X, the
# rest at random), once per option set:
#
#   default; -i/--included; -s/--skip-frequent; -x 1/--max-x 1;
#   -x 2/--max-x 2; -v/--no-overlaps; -g/--shortest; -g -i; -v -i
#
# and for each, `locate --format pff` rows (sorted: the row order differs)
# equal to ps_scan's `-o pff` rows, and `count`'s column per pattern equal to
# ps_scan's rows per accession (0 where it has none). `--format gff` (default
# and -g) equals ps_scan's `-o gff` with its source column read as
# "probescan" and its SequenceDescription attribute left out (the two
# differences probescan makes on purpose); `--format psa` equals `-o psa` as
# a set of (header, match text) entries. For default and -g, ps_scan's pff
# rows are its gff rows' columns 1, 4, 5 and 3, and for -v -i they are -v's
# (the same by its code), so one scan serves both: ps_scan is slow, about
# 0.1 s a protein for all 1,282 patterns (more with X), and its 9 runs go two
# at a time (PS_JOBS to change): about a minute on two cores.
#
# Needs PS_DATA (prosite_r14.dat, uniprot_20k.fa.gz) and ps_scan.pl
# (Debian: pftools).
#
#   bash tests/prosite.sh ./probescan      (PS_SEED=N repeats a run)
#
# Ends with "prosite.sh: N passed, N failed, N skipped".
set -u
export LC_ALL=C
bin=${1:-./probescan}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
[ -x "$bin" ] || { echo "prosite.sh: $bin is not an executable (build it with make)" >&2; exit 2; }
DATA=${PS_DATA:-}
case $DATA in "" | /*) ;; *) DATA=$PWD/$DATA ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/probescan-prosite.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2

passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }
skip() { skipped=$((skipped + $1)); echo "prosite.sh: $1 skipped ($2: $3)"; }
finish() {
    echo "prosite.sh: $passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
    exit
}

N_BZ=50 N_X=30 N_TOTAL=80   # records: with B or Z (all, up to N_BZ), with X, in all
JOBS=${PS_JOBS:-2}

# Cases: name | ps_scan options | probescan options | ps_scan format: gff
# where the gff is compared too (its pff rows are taken from it), or =CASE:
# that case's ps_scan rows, the same by ps_scan's code (with -v the next
# search starts after the last site's end, so no site is ever included in
# the one before, and -i changes nothing: one run fewer)
cases=(
    "default|||gff"
    "included|-i|--included|pff"
    "skip-frequent|-s|--skip-frequent|pff"
    "max-x-1|-x 1|--max-x 1|pff"
    "max-x-2|-x 2|--max-x 2|pff"
    "no-overlaps|-v|--no-overlaps|pff"
    "shortest|-g|--shortest|gff"
    "shortest-included|-g -i|--shortest --included|pff"
    "no-overlaps-included|-v -i|--no-overlaps --included|=no-overlaps"
)
# Checks: pff and count for each case, gff for each gff case, psa once.
n_checks=$((2 * ${#cases[@]} + 1))
for c in "${cases[@]}"; do [ "${c##*|}" = gff ] && n_checks=$((n_checks + 1)); done

# The data first: a skip names every file missing, whatever else is.
missing=
for f in prosite_r14.dat uniprot_20k.fa.gz; do
    [ -n "$DATA" ] && [ -f "$DATA/$f" ] || missing="$missing${missing:+, }$f"
done
if [ -n "$missing" ]; then
    skip $n_checks data "PS_DATA${DATA:+=$DATA} has no $missing: PROSITE patterns against ps_scan.pl"
    finish
fi
if ! command -v ps_scan.pl >/dev/null; then
    skip $n_checks peer "ps_scan.pl not installed (Debian: pftools)"
    finish
fi
dat=$DATA/prosite_r14.dat
seed=${PS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "prosite.sh: seed $seed"

# ---- the sample: records with B or Z, with X, then the rest ---------------
gzip -dc "$DATA/uniprot_20k.fa.gz" > all.fa || { bad "reading uniprot_20k.fa.gz"; finish; }
awk '/^>/ { n++; k[n] = "o"; next } /[BZ]/ { k[n] = "bz"; next } /X/ && k[n] == "o" { k[n] = "x" }
     END { for (i = 1; i <= n; i++) print i "\t" k[i] }' all.fa > kinds.tsv
awk -v s="$seed" 'BEGIN { srand(s) } { print rand() "\t" $0 }' kinds.tsv | sort -k1,1 | cut -f2- > shuffled.tsv
{
    awk -F'\t' '$2 == "bz"' shuffled.tsv | head -$N_BZ
    awk -F'\t' '$2 == "x"' shuffled.tsv | head -$N_X
    awk -F'\t' '$2 == "o"' shuffled.tsv
} | head -$N_TOTAL > picked.tsv
awk -F'\t' 'NR == FNR { keep[$1] = 1; next } /^>/ { n++ } n in keep' picked.tsv all.fa > sample.fa
rm -f all.fa
echo "prosite.sh: $(grep -c '^>' sample.fa) proteins ($(awk -F'\t' '{ n[$2]++ } END { printf "%d with B or Z, %d with X", n["bz"], n["x"] }' picked.tsv)), $(awk '!/^>/ { n += length($0) } END { print n }' sample.fa) residues"

# PATTERN accessions, and those with /SKIP-FLAG=TRUE, from the data file.
awk '/^ID/ { pat = ($0 ~ /; PATTERN\./); skipf = 0 } /^AC/ { ac = $2; sub(/;$/, "", ac) }
     /^CC   \/SKIP-FLAG=TRUE/ { skipf = 1 } /^\/\// && pat { print ac "\t" skipf; pat = 0 }' "$dat" > patterns.tsv

# ---- probescan (seconds), then ps_scan JOBS runs at a time -----------------
# pscan OUT SUBCOMMAND OPTIONS...: its output in OUT, its stderr in OUT.err,
# its exit status in OUT.rc. Patterns only, as ps_scan -r (profiles.sh
# compares the profiles).
pscan() {
    local out=$1
    shift
    "$bin" "$@" --no-profiles -p "$dat" sample.fa > "$out" 2> "$out.err"
    echo $? > "$out.rc"
}
for c in "${cases[@]}"; do
    IFS='|' read -r name _ popts fmt <<<"$c"
    # shellcheck disable=SC2086
    {
        pscan "pb.$name.pff" locate -q --format pff $popts
        pscan "pb.$name.tsv" count -q $popts
        [ "$fmt" = gff ] && pscan "pb.$name.gff" locate -q --format gff $popts
    }
done
pscan pb.default.psa locate -q --format psa

start=$SECONDS
# psscan NAME FORMAT OPTIONS...: ps_scan's output in ps.NAME.FORMAT, its exit
# status in ps.NAME.FORMAT.rc, its stderr (RULE warnings) in ps.NAME.FORMAT.err
psscan() {
    local name=$1 fmt=$2
    shift 2
    ps_scan.pl -r -d "$dat" -o "$fmt" "$@" sample.fa > "ps.$name.$fmt" 2> "ps.$name.$fmt.err"
    echo $? > "ps.$name.$fmt.rc"
}
running=0
# queue NAME FORMAT OPTIONS...: starts it when fewer than JOBS run
queue() {
    if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
    psscan "$@" &
    running=$((running + 1))
}
for c in "${cases[@]}"; do
    IFS='|' read -r name psopts _ fmt <<<"$c"
    [ "${fmt#=}" = "$fmt" ] || continue
    # shellcheck disable=SC2086
    queue "$name" "$fmt" $psopts
done
queue default psa
wait
echo "prosite.sh: ps_scan.pl runs took $((SECONDS - start)) s ($JOBS at a time)"

# ---- comparisons -----------------------------------------------------------
# ran WHAT FILE: 0 when FILE.rc says 0; else a failure naming WHAT, with the
# first lines of its stderr.
ran() {
    if [ "$(cat "$2.rc" 2> /dev/null)" = 0 ]; then return 0; fi
    bad "$1: exit status $(cat "$2.rc" 2> /dev/null)"
    head -3 "$2.err" 2> /dev/null | sed 's/^/    /'
    return 1
}
# same WHAT GOT WANT: sorted files equal, else the first lines only ps_scan
# has ("<") and the first only probescan has (">")
same() {
    if cmp -s "$2" "$3"; then
        ok
    else
        bad "$1 ($(wc -l < "$3") ps_scan rows, $(wc -l < "$2") probescan rows; < ps_scan, > probescan)"
        diff "$3" "$2" > d.out
        { grep '^<' d.out | head -4; grep '^>' d.out | head -4; } | sed 's/^/    /'
    fi
}
# gff rows as probescan writes them: source "probescan", no SequenceDescription
# (the attributes after it, SkipFlag and KnownFalsePos, hold no quote)
norm_gff() {
    sed -E 's/ ; SequenceDescription ".*"(( ; SkipFlag 1)?( ; KnownFalsePos [0-9]+)?)$/\1/' "$1" |
        awk -F'\t' -v OFS='\t' '{ $2 = "probescan"; print }' | sort
}
# psa entries, one line each: header, a tab, the match text's lines joined by |
psa_pairs() {
    awk '/^>/ { if (h != "") print h "\t" b; h = $0; b = ""; next } { b = b (b == "" ? "" : "|") $0 }
         END { if (h != "") print h "\t" b }' "$1" | sort
}

for c in "${cases[@]}"; do
    IFS='|' read -r name psopts popts fmt <<<"$c"
    what="$name (ps_scan ${psopts:-no options}, probescan ${popts:-no options})"
    ref=ps.$name.$fmt
    case $fmt in =*) ref=ps.${fmt#=}.pff what="$what [ps_scan's ${fmt#=} rows]" fmt=pff ;; esac
    if ! ran "ps_scan.pl $what" "$ref"; then
        # its pff and count (and gff) checks did not run: failed too
        failed=$((failed + 1))
        [ "$fmt" = gff ] && failed=$((failed + 1))
        continue
    fi
    if [ "$fmt" = gff ]; then
        awk -F'\t' -v OFS='\t' '{ print $1, $4, $5, $3, "" }' "ps.$name.gff" | sort > want.pff
        norm_gff "ps.$name.gff" > want.gff
        if ran "probescan locate --format gff, $what" "pb.$name.gff"; then
            sort "pb.$name.gff" > got.gff
            same "locate --format gff, $what" got.gff want.gff
        fi
    else
        sort "$ref" > want.pff
    fi
    if ran "probescan locate --format pff, $what" "pb.$name.pff"; then
        sort "pb.$name.pff" > got.pff
        same "locate --format pff, $what" got.pff want.pff
    fi
    if ran "probescan count, $what" "pb.$name.tsv"; then
        # count per PATTERN accession against ps_scan's rows per accession;
        # with -s the skip-flagged ones are not scanned: absent or 0.
        s=0
        case " $psopts " in *" -s "*) s=1 ;; esac
        awk -F'\t' -v s=$s '
            FILENAME == ARGV[1] { all[$1] = 1; flag[$1] = $2; next }
            FILENAME == ARGV[2] { want[$4]++; next }
            FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; if (!("name" in col) || !("count" in col)) { print "no name or count column: " $0; nohead = 1; exit }; next }
            { ac = $col["name"]; n = $col["count"]; seen[ac] = 1
              if (!(ac in all)) print ac ": not a PATTERN entry, count " n
              else if (s && flag[ac]) { if (n != 0) print ac ": skip-flagged, count " n " (want absent or 0)" }
              else if (n != want[ac] + 0) print ac ": count " n ", ps_scan " want[ac] + 0 " rows" }
            END { if (nohead) exit; for (ac in all) if (!(ac in seen) && !(s && flag[ac])) print ac ": no row in the count table" }' \
            patterns.tsv want.pff "pb.$name.tsv" | sort > count.diff
        if [ ! -s count.diff ]; then ok; else
            bad "count, $what: $(wc -l < count.diff) patterns differ"
            head -8 count.diff | sed 's/^/    /'
        fi
    fi
done

if ran "ps_scan.pl -o psa" ps.default.psa && ran "probescan locate --format psa" pb.default.psa; then
    psa_pairs ps.default.psa > want.psa
    psa_pairs pb.default.psa > got.psa
    same "locate --format psa, default options (entries as header<TAB>match)" got.psa want.psa
fi
finish
