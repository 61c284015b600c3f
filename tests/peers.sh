#!/usr/bin/env bash
# peers.sh - patterns against EMBOSS, an independent implementation users
# trust: PROSITE patterns (sampled from a PROSITE release, with variable
# repeats and anchors among them) over UniProt proteins against fuzzpro, and
# IUPAC probes with up to two mismatches on both strands of the yeast genome
# against fuzznuc. Needs PS_DATA (prosite_r14.dat, uniprot_20k.fa.gz,
# yeast_S288C_R64-1-1.bgzf.fa.gz) and fuzzpro/fuzznuc (Debian: emboss).
#
# fuzzpro and fuzznuc list every (start, end) pair that matches; probescan
# counts a site once per start on its own strand, at its fewest mismatches
# (README, counting rules). So their distinct starts (per record and
# strand; on the minus strand a site starts at its higher coordinate, which
# EMBOSS lists as End), each at its smallest mismatch, are compared with
# probescan's count and mm columns. DNA patterns of variable length on both
# strands (x(i,j) between two pieces of the genome) check that rule.
#
#   bash tests/peers.sh ./probescan      (PS_SEED=N repeats a run)
#
# Ends with "peers.sh: N passed, N failed, N skipped".
set -u
export LC_ALL=C
bin=${1:-./probescan}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -x "$bin" ] || { echo "peers.sh: $bin is not an executable (build it with make)" >&2; exit 2; }
DATA=${PS_DATA:-}
case $DATA in "" | /*) ;; *) DATA=$PWD/$DATA ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/probescan-peers.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2

passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }
skip() { skipped=$((skipped + $1)); echo "peers.sh: $1 skipped ($2: $3)"; }
seed=${PS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "peers.sh: seed $seed"

N_PROSITE=40 N_PROSITE_MM=6 N_IUPAC=6 N_VARDNA=4
# have_data FILE...: 0 when PS_DATA holds them all; else 1, the missing ones in $missing.
have_data() {
    missing=
    for f in "$@"; do [ -n "$DATA" ] && [ -f "$DATA/$f" ] || missing="$missing${missing:+, }$f"; done
    [ -z "$missing" ]
}

# distinct STARTS: from EMBOSS excel output, "record start strand mismatch"
# per distinct start at its smallest mismatch; prints "d count" lines.
by_distance() {
    awk -F'\t' 'NR > 1 && $1 != "SeqName" { k = $1 SUBSEP ($5 == "-" ? $3 : $2) SUBSEP $5; m = ($7 == ".") ? 0 : $7 + 0
                                           if (!(k in best) || m < best[k]) best[k] = m }
                END { for (k in best) n[best[k]]++; for (d in n) print d, n[d] }' "$1" | sort -n
}

# Each part runs where its files are, and otherwise skips naming them.
emboss=1
if ! command -v fuzzpro >/dev/null || ! command -v fuzznuc >/dev/null; then
    skip $((N_PROSITE + N_PROSITE_MM + N_IUPAC + N_VARDNA)) peer "fuzzpro or fuzznuc not installed (Debian: emboss)"
    emboss=0
fi
if [ $emboss = 1 ] && ! have_data prosite_r14.dat uniprot_20k.fa.gz; then
    skip $((N_PROSITE + N_PROSITE_MM)) data "PS_DATA${DATA:+=$DATA} has no $missing: PROSITE patterns against fuzzpro"
elif [ $emboss = 1 ]; then
    gzip -dc "$DATA/uniprot_20k.fa.gz" | head -4000 > prot.fa
    # The PATTERN entries as accession<TAB>pattern, a seeded sample of them.
    awk '/^ID/ { pat = ($0 ~ /; PATTERN\./); pa = "" } /^AC/ { ac = $2; sub(/;$/, "", ac) }
         /^PA/ && pat { pa = pa substr($0, 6) } /^\/\// && pat && pa != "" { print ac "\t" pa; pat = 0 }' \
        "$DATA/prosite_r14.dat" > all.tsv
    # fuzzpro does not read an edge inside a class ([G>]: G or the C-terminus;
    # it takes G alone), so those patterns are not compared with it.
    awk -v s="$seed" 'BEGIN { srand(s) } !/\[[^]]*[<>]/ { print rand() "\t" $0 }' all.tsv | sort -k1,1 | cut -f2- |
        head -$((N_PROSITE + N_PROSITE_MM)) > sample.tsv
    head -$N_PROSITE sample.tsv > exact.tsv
    tail -$N_PROSITE_MM sample.tsv > mm.tsv
    # fuzzpro lists every start; probescan's default follows ps_scan, which
    # leaves out sites included in the one before (tests/prosite.sh checks
    # that against ps_scan itself): --included counts every start.
    "$bin" count -q -a protein --included -p exact.tsv prot.fa > ps0.tsv || bad "probescan on the PROSITE sample"
    "$bin" count -q -a protein -m 1 -p mm.tsv prot.fa > ps1.tsv || bad "probescan -m 1 on the PROSITE sample"
    while IFS=$'\t' read -r ac pa; do
        fuzzpro -sequence prot.fa -pattern "$pa" -outfile f.out -rformat excel -auto 2>/dev/null
        want=$(by_distance f.out | awk '{ s += $2 } END { print s + 0 }')
        got=$(awk -F'\t' -v a="$ac" '$1 == a { print $3 }' ps0.tsv)
        if [ "$got" = "$want" ]; then ok; else bad "$ac $pa: probescan $got, fuzzpro $want distinct starts"; fi
    done < exact.tsv
    while IFS=$'\t' read -r ac pa; do
        fuzzpro -sequence prot.fa -pattern "$pa" -pmismatch 1 -outfile f.out -rformat excel -auto 2>/dev/null
        want=$(by_distance f.out | awk '{ n[$1] = $2 } END { print n[0] + 0, n[1] + 0 }')
        got=$(awk -F'\t' -v a="$ac" '$1 == a { print $4, $5 }' ps1.tsv)
        if [ "$got" = "$want" ]; then ok; else bad "$ac $pa -m 1: probescan mm0 mm1 $got, fuzzpro $want"; fi
    done < mm.tsv
fi

# IUPAC probes: 20-mers of the genome with a few positions made degenerate.
if [ $emboss = 1 ] && ! have_data yeast_S288C_R64-1-1.bgzf.fa.gz; then
    skip $((N_IUPAC + N_VARDNA)) data "PS_DATA${DATA:+=$DATA} has no $missing: IUPAC and variable DNA patterns against fuzznuc"
elif [ $emboss = 1 ]; then
    gzip -dc "$DATA/yeast_S288C_R64-1-1.bgzf.fa.gz" > yeast.fa
    python3 "$here/../bench/sample_probes.py" yeast.fa $N_IUPAC 20 --seed "$seed" |
        awk -v s="$seed" 'BEGIN { srand(s); split("RYSWKMBDHVN", code, "") } /^>/ { next } {
            p = $0; for (j = 0; j < 2; j++) { at = 1 + int(rand() * 20); p = substr(p, 1, at - 1) code[1 + int(rand() * 11) % 11] substr(p, at + 1) }
            print "q" NR "\t" p }' > iupac.tsv
    "$bin" count -q -a dna -m 2 -p iupac.tsv yeast.fa > ps2.tsv || bad "probescan -m 2 on the IUPAC probes"
    while IFS=$'\t' read -r name pa; do
        fuzznuc -sequence yeast.fa -pattern "$pa" -pmismatch 2 -complement -outfile n.out -rformat excel -auto 2>/dev/null
        want=$(by_distance n.out | awk '{ n[$1] = $2 } END { print n[0] + 0, n[1] + 0, n[2] + 0 }')
        got=$(awk -F'\t' -v a="$name" '$1 == a { print $6, $7, $8 }' ps2.tsv)
        if [ "$got" = "$want" ]; then ok; else bad "$name $pa -m 2 both strands: probescan $got, fuzznuc $want"; fi
    done < iupac.tsv

    # DNA patterns of variable length, both strands, exact (with mismatches
    # fuzznuc keeps one end a start, not always the fewest mismatches): the
    # first and last 4 letters of a sampled 20-mer around a gap of 0 to 3.
    python3 "$here/../bench/sample_probes.py" yeast.fa $N_VARDNA 20 --seed "$((seed + 1))" |
        awk '/^>/ { next } { n++; print "v" n "\t" substr($0, 1, 1) "-" substr($0, 2, 1) "-" substr($0, 3, 1) "-" \
             substr($0, 4, 1) "-x(0,3)-" substr($0, 17, 1) "-" substr($0, 18, 1) "-" substr($0, 19, 1) "-" substr($0, 20, 1) }' \
        > vardna.tsv
    "$bin" count -q -a dna -p vardna.tsv yeast.fa > ps3.tsv || bad "probescan on the variable DNA patterns"
    while IFS=$'\t' read -r name pa; do
        fuzznuc -sequence yeast.fa -pattern "$pa" -complement -outfile n.out -rformat excel -auto 2>/dev/null
        want=$(by_distance n.out | awk '{ s += $2 } END { print s + 0 }')
        got=$(awk -F'\t' -v a="$name" '$1 == a { print $3 }' ps3.tsv)
        if [ "$got" = "$want" ]; then ok; else bad "$name $pa both strands: probescan $got, fuzznuc $want distinct starts"; fi
    done < vardna.tsv
fi
echo "peers.sh: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
