#!/usr/bin/env bash
# locate.sh - `probescan locate` from the command line: rows of a small
# input written out by hand (N runs, wrapped and lowercase lines, empty
# records, palindromes, PROSITE patterns of variable length, anchors), its
# agreement with `count --by-record`, thread counts, gzip output,
# --max-hits, refusals, input names, --stats (count's too: one writer),
# -q and the progress line, the help beside count's; then seqkit locate
# on the same genome and reads (seqkit on the PATH; reads from PS_DATA)
# and bedtools reading the output.
#
#   bash tests/locate.sh ./probescan
#
# Ends with "locate.sh: N passed, N failed, N skipped".
set -u
export LC_ALL=C
bin=${1:-./probescan}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
[ -x "$bin" ] || { echo "locate.sh: $bin is not an executable (build it with make)" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
genome=$here/../fasta/ecoli_K12_MG1655.fa.gz
gprobes=$here/../fasta/ecoli_probes.fa
DATA=${PS_DATA:-}
case $DATA in "" | /*) ;; *) DATA=$PWD/$DATA ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/probescan-locate.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2

passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }
skip() { skipped=$((skipped + $1)); echo "locate.sh: $1 skipped ($2: $3)"; }
# same WHAT FILE WANT-FILE
same() { if cmp -s "$2" "$3"; then ok; else bad "$1"; diff "$3" "$2" | head -8; fi; }

# ---- rows written out by hand ----------------------------------------------
printf '>a x\nACGTNNacgtAC\nGTACGT\n>b\n\n>c\nNNNNACGTA\n' > t.fa
printf 'ACGT\n' > pal.txt
"$bin" locate -p pal.txt t.fa > got.bed 2> err || bad "a palindrome: exit status"
printf 'a\t%s\t%s\tACGT\t0\t%s\n' 0 4 + 0 4 - 6 10 + 6 10 - 10 14 + 10 14 - 14 18 + 14 18 - > want.bed
printf 'c\t4\t8\tACGT\t0\t+\nc\t4\t8\tACGT\t0\t-\n' >> want.bed
same "a palindrome on both strands: offsets count N, lines and case do not" got.bed want.bed

printf 'p\tAAC\nq\tGTT\nr\tAANC\n' > mm.txt
printf '>s\nAACGTTAATC\n' > s.fa
"$bin" locate -m 1 -s forward -p mm.txt s.fa > got.bed || bad "mismatches: exit status"
{
    printf 's\t0\t3\tp\t0\t+\n'
    printf 's\t0\t4\tr\t1\t+\n'
    printf 's\t3\t6\tq\t0\t+\n'
    printf 's\t6\t9\tp\t1\t+\n'
    printf 's\t6\t10\tr\t0\t+\n'
    printf 's\t7\t10\tp\t1\t+\n'
} > want.bed
same "IUPAC and mismatches: each site once, at its fewest, ordered by start then probe" got.bed want.bed

# Variable lengths end at the shortest match; anchors hold at record edges.
printf '>p1\nMKAAKW\n>p2\nKAKAAAK\n>p3\nKWA\n' > prot.fa
printf 'v\tK-x(0,2)-K\nw\t<M-K\nz\tA-[KW>]\n' > pat.txt
"$bin" locate -a protein -p pat.txt prot.fa > got.bed || bad "patterns: exit status"
{
    printf 'p1\t0\t2\tw\t0\t+\n'
    printf 'p1\t1\t5\tv\t0\t+\n'
    printf 'p1\t3\t5\tz\t0\t+\n'
    printf 'p2\t0\t3\tv\t0\t+\n'
    printf 'p2\t1\t3\tz\t0\t+\n'
    printf 'p2\t5\t7\tz\t0\t+\n'
    printf 'p3\t2\t3\tz\t0\t+\n'
} > want.bed
same "PROSITE: shortest ends, the start anchor, [K>] at the record's end" got.bed want.bed

"$bin" locate --format tsv -p pal.txt t.fa > got.tsv
{
    printf 'input\trecord\tstart\tend\tname\tmismatches\tstrand\tprobe\tmatched\n'
    printf 't\ta\t6\t10\tACGT\t0\t+\tACGT\tACGT\n'
} > want.tsv
if [ "$(head -1 got.tsv)" = "$(head -1 want.tsv)" ] && grep -qF "$(tail -1 want.tsv)" got.tsv &&
    [ "$(wc -l < got.tsv)" -eq 11 ]; then ok; else bad "--format tsv: header, input, matched letters"; cat got.tsv; fi

# Standard input; SAM records in the orientation sequenced (flag 16 turned
# back); a record name over 255 bytes cut, with a warning.
if cat t.fa | "$bin" locate -p pal.txt - | cmp -s - <("$bin" locate -p pal.txt t.fa); then ok; else bad "locate - (standard input)"; fi
printf '@SQ\tSN:c\tLN:100\nr1\t0\tc\t1\t60\t10M\t*\t0\t0\tACGTTTTTTT\tIIIIIIIIII\nr2\t16\tc\t1\t60\t10M\t*\t0\t0\tAAAAAAACGT\tIIIIIIIIII\n' > r.sam
printf 'r1\t0\t4\tACGT\t0\t+\nr2\t0\t4\tACGT\t0\t+\n' > want.bed
"$bin" locate -s forward -p pal.txt r.sam > got.bed 2> err || bad "SAM: exit status"
same "SAM: a reverse-strand read placed as sequenced" got.bed want.bed
long=$(printf '%0300d' 0)
printf '>%s\nACGT\n' "$long" > long.fa
"$bin" locate -t 2 -p pal.txt long.fa > got.bed 2> err
if [ "$(cut -f1 got.bed | head -1 | wc -c)" -eq 256 ] && grep -q "1 record name is longer than 255 bytes" err; then ok; else bad "a 300-byte record name: cut to 255, with a warning"; cat err; fi

# ---- the same as count --by-record, on any thread count ---------------------
# sums ROWS: record, name, forward, reverse, from locate's BED
sums() { awk -F'\t' '{ k = $1 "\t" $4; f[k] += ($6 == "+"); r[k] += ($6 == "-") } END { for (k in f) print k "\t" f[k] "\t" r[k] }' "$1" | sort; }
# byrec TABLE: the same from count --by-record (one strand: count, 0)
byrec() { awk -F'\t' 'NR == 1 { fw = $6 == "forward" } NR > 1 { print $2 "\t" $3 "\t" (fw ? $6 "\t" $7 : $5 "\t0") }' "$1" | sort; }
printf 'i1\tGATTACAGGC\ni2\tTTGACCATGA\ni3\tRGATCY\ni4\tACGCGT\n' > mixed.txt
for args in "-p $gprobes" "-m 1 -p mixed.txt" "-m 2 -s forward -p mixed.txt"; do
    # shellcheck disable=SC2086
    "$bin" locate -t 2 $args "$genome" > l2.bed && "$bin" locate -t 1 $args "$genome" > l1.bed &&
        "$bin" count --by-record -q $args "$genome" > br.tsv || { bad "locate/count $args: exit status"; continue; }
    same "locate $args: the same rows on 1 and 2 threads" l1.bed l2.bed
    sums l2.bed > a.sum
    byrec br.tsv > b.sum
    if [ -s a.sum ] && cmp -s a.sum b.sum; then ok; else bad "locate $args: rows summed per record and probe are not count --by-record's"; diff a.sum b.sum | head -5; fi
done

# ---- output files and limits -------------------------------------------------
"$bin" locate -m 1 -p mixed.txt -o out.bed.gz "$genome" || bad "-o .gz: exit status"
"$bin" locate -m 1 -p mixed.txt "$genome" > out.bed
if gzip -dc out.bed.gz | cmp -s - out.bed; then ok; else bad "-o out.bed.gz: not the plain rows, compressed"; fi
"$bin" locate -m 1 -p mixed.txt --max-hits 5 --stats st.json "$genome" > cap.bed 2> err
if [ "$(cut -f4 cap.bed | sort | uniq -c | awk '$1 > 5' | wc -l)" -eq 0 ] && [ "$(wc -l < cap.bed)" -eq 20 ] &&
    grep -q -- "--max-hits 5: 4 probes had more sites" err && grep -q '"probes_capped": 4' st.json; then
    ok
else
    bad "--max-hits 5: rows per probe, the stderr line, --stats"; cat err; head -3 st.json
fi
expected_first=$(awk -F'\t' '++n[$4] <= 5' out.bed | md5sum)
if [ "$(md5sum < cap.bed)" = "$expected_first" ]; then ok; else bad "--max-hits keeps each probe's first rows in order"; fi

for a in "--format xml -p pal.txt t.fa" "--max-hits 0 -p pal.txt t.fa" "-p pal.txt" "t.fa" "-m 9 -p pal.txt t.fa" \
    "-o t.fa -p pal.txt t.fa" "-s both -a protein -p pal.txt t.fa"; do
    # shellcheck disable=SC2086
    if "$bin" locate $a > /dev/null 2> err; then bad "locate $a should fail"; elif [ "$(wc -l < err)" -eq 1 ]; then ok; else bad "locate $a: one error line"; cat err; fi
done
cmp -s t.fa <(printf '>a x\nACGTNNacgtAC\nGTACGT\n>b\n\n>c\nNNNNACGTA\n') && ok || bad "-o INPUT left the input alone"
"$bin" locate --help | grep -q "Usage: probescan locate" && ok || bad "locate --help"

# ---- input names, --stats, and the options shared with count ---------------
# The TSV's input column cannot hold a tab or line break: refused before
# anything is written, as count refuses such a --by-file column; BED, which
# holds no input name, takes the file.
cp t.fa "$(printf 'ta\tb.fa')"
cp t.fa "$(printf 'nl\nb.fa')"
for f in "$(printf 'ta\tb.fa')" "$(printf 'nl\nb.fa')"; do
    what=$(printf '%q' "$f")
    if "$bin" locate --format tsv -p pal.txt -o names.tsv "$f" > got.tsv 2> err; then
        bad "--format tsv on $what: should fail"
    elif ! grep -q "tab or line break in its name" err || [ -s got.tsv ] || [ -e names.tsv ]; then
        bad "--format tsv on $what: not refused before writing"; cat err
    else ok; fi
    if "$bin" locate -p pal.txt "$f" > got.bed 2> err && [ "$(wc -l < got.bed)" -eq 10 ]; then ok; else bad "BED on $what"; cat err; fi
done

# --stats is valid JSON whatever the file names: a byte that is not UTF-8
# becomes U+FFFD; a tab, quote and backslash come back as they were. The
# engine asked for is what --engine said (auto by default), for count too.
ff=$(printf 'x\377y.fa') odd=$(printf 'q"t\\b\tc.fa')
cp t.fa "$ff"
cp t.fa "$odd"
if command -v python3 > /dev/null; then
    for cmd in locate count; do
        if "$bin" "$cmd" -p pal.txt --stats "$cmd.json" -o /dev/null "$ff" "$odd" 2> err; then
            if python3 -m json.tool "$cmd.json" > /dev/null 2>&1; then ok; else bad "$cmd --stats over a \\377 name: not valid JSON"; cat "$cmd.json"; fi
            if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert [i["path"] for i in d["inputs"]] == ["x\ufffdy.fa", "q\"t\\b\tc.fa"], d["inputs"]
assert d["engine_requested"] == "auto" and d["engine"] == "cpu", d' "$cmd.json" 2> err; then ok; else
                bad "$cmd --stats: paths or engine_requested"; cat err; fi
        else
            bad "$cmd --stats over odd names: exit status"; cat err
        fi
    done
else
    skip 4 tool "python3 is not installed"
fi
"$bin" count -q --engine cpu -p pal.txt --stats c.json t.fa > /dev/null
if grep -q '"engine_requested": "cpu"' c.json; then ok; else bad "count --engine cpu: engine_requested"; grep engine c.json; fi
# The layout line readers rely on: one key a line, an input a line.
if [ "$(grep -c '^    {"path": ' count.json 2> /dev/null)" -eq 2 ] && grep -q '^  "records": 3,$' c.json &&
    [ "$(head -1 c.json)" = "{" ] && [ "$(tail -1 c.json)" = "}" ]; then ok; else bad "--stats layout"; cat c.json; fi
# A write error is an error (/dev/full), and a stats file is whole or absent.
for cmd in locate count; do
    if "$bin" "$cmd" -p pal.txt --stats /dev/full t.fa > /dev/null 2> err; then
        bad "$cmd --stats /dev/full: exit 0"
    elif [ "$(wc -l < err)" -eq 1 ] && grep -q "/dev/full" err; then ok; else bad "$cmd --stats /dev/full: one line naming it"; cat err; fi
done
# No room for the file (a file size limit of 0; SIGXFSZ ignored, so the
# write fails): an error, the old file as it was, no temporary file left.
mkdir full && echo old > full/s.json
# (its messages through a pipe: the limit holds for every regular file)
(trap '' XFSZ; ulimit -f 0 && "$bin" locate -p pal.txt --stats full/s.json t.fa 2>&1 > /dev/null) | cat > err
if [ "${PIPESTATUS[0]}" -eq 0 ]; then
    bad "--stats over the file size limit: exit 0"
elif [ "$(cat full/s.json)" = old ] && [ "$(ls full)" = s.json ] && grep -q "full/s.json" err; then ok; else
    bad "--stats over the file size limit: the old file changed or a temporary left"; ls full; cat err; fi

# -q as for count; the progress line where standard error is a terminal
# (script gives a pseudo-terminal), not with -q, nor where the rows go to it.
"$bin" locate -q -p pal.txt t.fa > q.bed 2> err && cmp -s q.bed <("$bin" locate -p pal.txt t.fa) && ok ||
    { bad "locate -q"; cat err; }
if command -v script > /dev/null && script -qec true /dev/null > /dev/null 2>&1; then
    awk 'BEGIN { print ">r"; for (i = 0; i < 30000; i++) print "ACGTTGCAACGTAGCTAGCTAGCATCGATCGACTAGCATCGACTACGACTAGCATCGA" }' > slow.fa
    # the input arrives over more than half a second, when the line first shows
    slowly="{ head -c 1000000 slow.fa; sleep 1; tail -c +1000001 slow.fa; }"
    script -qec "$slowly | '$bin' locate -p pal.txt -o slow.bed -" /dev/null > tty.txt 2>&1
    if grep -q 'probescan: \[1/1\] -: ' tty.txt && [ -s slow.bed ]; then ok; else bad "locate: no progress line on a terminal"; cat -A tty.txt | head -3; fi
    script -qec "$slowly | '$bin' locate -q -p pal.txt -o slow.bed -" /dev/null > tty.txt 2>&1
    if ! grep -q 'probescan: \[' tty.txt; then ok; else bad "locate -q: a progress line"; fi
    script -qec "$slowly | '$bin' locate -p pal.txt -" /dev/null > tty.txt 2>&1
    if ! grep -q 'probescan: \[' tty.txt && grep -q 'ACGT' tty.txt; then ok; else bad "locate: a progress line among rows on the terminal"; fi
else
    skip 3 tool "script (util-linux) cannot give a pseudo-terminal here"
fi

# The options locate shares with count: listed in both helps, and those
# that mean the same said in the same words.
"$bin" count --help > count.help
"$bin" locate --help > locate.help
# para HELP OPT: the option's lines of a help (its line and those indented under it)
para() { awk -v o="$2" '$1 == o "," || $1 == o { on = 1; print; next } on && /^                         / { print; next } { on = 0 }' "$1"; }
for o in -p -m -a -s -o -t --stats --engine --gpu -v -q -h --version; do
    if [ -n "$(para count.help "$o")" ] && [ -n "$(para locate.help "$o")" ]; then ok; else bad "$o is not in both helps"; fi
done
for o in -p -a -s --stats --gpu -q -h --version; do
    if [ "$(para count.help "$o")" = "$(para locate.help "$o")" ]; then ok; else
        bad "$o: count and locate --help differ"; diff <(para count.help "$o") <(para locate.help "$o"); fi
done

# ---- peers: seqkit locate and bedtools ---------------------------------------
# seqkit prints 0-based BED too, by strand then start, matches case-sensitive
# unless -i, and a score of 0 whatever the mismatches: compare the columns
# both mean the same by, as sets.
cols() { cut -f1,2,3,4,6 "$1" | sort; }
if command -v seqkit > /dev/null; then
    "$bin" locate -p "$gprobes" "$genome" > ours.bed
    seqkit locate -i --bed -f "$gprobes" "$genome" > theirs.bed 2> /dev/null
    if [ "$(wc -l < ours.bed)" -gt 100 ] && cmp -s <(cols ours.bed) <(cols theirs.bed); then ok; else bad "seqkit locate on E. coli: different sites"; fi
    printf '>i1\nGATTACAGGC\n>i2\nTTGACCATGA\n>i4\nACGCGTAAGC\n' > short.fa
    "$bin" locate -m 1 -p short.fa "$genome" > ours.bed
    seqkit locate -i -m 1 --bed -f short.fa "$genome" > theirs.bed 2> /dev/null
    if [ "$(wc -l < ours.bed)" -gt 100 ] && cmp -s <(cols ours.bed) <(cols theirs.bed); then ok; else bad "seqkit locate -m 1 on E. coli: different sites"; fi
    reads=$DATA/illumina_hiseqX_10k.fq.gz
    if [ -n "$DATA" ] && [ -r "$reads" ]; then
        # Probes taken from the reads themselves, 15-mers, so that they hit.
        gzip -dc "$reads" | awk 'NR % 4 == 2 && NR % 400 == 2 && $0 !~ /N/ { print ">r" NR "\n" substr($0, 20, 15) }' | head -40 > rp.fa
        "$bin" locate -m 1 -p rp.fa "$reads" > ours.bed
        seqkit locate -i -m 1 --bed -f rp.fa "$reads" > theirs.bed 2> /dev/null
        if [ "$(wc -l < ours.bed)" -ge 20 ] && cmp -s <(cols ours.bed) <(cols theirs.bed); then ok; else bad "seqkit locate -m 1 on reads: different sites"; fi
    else
        skip 1 data "reads need PS_DATA with illumina_hiseqX_10k.fq.gz"
    fi
else
    skip 3 peer "seqkit is not installed"
fi
if command -v bedtools > /dev/null; then
    "$bin" locate -m 1 -p mixed.txt "$genome" > one.bed
    # bedtools sort orders by record and start only, ties in any order.
    bedtools sort -i one.bed > sorted.bed
    if [ -s one.bed ] && cmp -s <(cut -f1,2 sorted.bed) <(cut -f1,2 one.bed) && cmp -s <(sort sorted.bed) <(sort one.bed); then
        ok
    else
        bad "bedtools sort reorders locate's rows on one record"
    fi
    if bedtools merge -s -c 4 -o distinct -i one.bed > merged.bed 2> err && [ -s merged.bed ]; then ok; else bad "bedtools merge on locate's rows"; cat err; fi
else
    skip 2 peer "bedtools is not installed"
fi

# PROSITE patterns read FASTA in blocks of whole records on several
# threads: a record longer than a block (3 MB of protein against blocks of
# 1 MiB at most) grows its block, and the rows are those of one thread
# reading in order, as are count's (ps_scan's rules: included sites left
# out, greedy ends) and with an anchor at both ends of the long record.
awk 'BEGIN { srand(7); a = "ACDEFGHIKLMNPQRSTVWYX"; for (r = 0; r < 40; r++) { printf ">p%d\n", r
             n = r == 20 ? 3000000 : 50 + int(rand() * 400); s = ""
             for (i = 0; i < n; i++) { s = s substr(a, 1 + int(rand() * 21) % 21, 1); if (length(s) == 60) { print s; s = "" } }
             if (s != "") print s } }' > long_prot.fa
printf 'p1\tC-x(2,4)-[DE]-x(0,3)-H\np2\t<x(0,3)-[ST]\np3\t[KR]-x(1,2)-[ST]-x>\np4\tG-x-G-x(2)-G\n' > pat.tsv
for cmd in "locate --format pff" "count"; do
    if "$bin" $cmd -q -t 1 -p pat.tsv long_prot.fa > one_t.out 2> err && "$bin" $cmd -q -t 4 -p pat.tsv long_prot.fa > four_t.out 2>> err &&
        [ -s one_t.out ] && cmp -s one_t.out four_t.out; then
        ok
    else
        bad "$cmd of PROSITE patterns over a 3 MB protein: 4 threads (blocks of whole records) differ from 1"
        head -3 err
    fi
done

echo "locate.sh: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
