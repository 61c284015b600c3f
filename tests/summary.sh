#!/usr/bin/env bash
# `probescan summary` end to end: on tables counted here from random
# sequence (seed printed; PS_SEED=N repeats a run), its three MultiQC files are
# checked against what awk and sort compute from the same tables: probes
# found and hits per sample, the five most counted probes (ties in probe-file
# order), records and bases from --stats; totals tables and the --by-file
# matrix of the same inputs give the same files; refused inputs leave no file
# behind. Then, where `multiqc` is installed, its report must show the three
# sections (skipped, saying so, without it).
# Usage: tests/summary.sh [PROBESCAN_BINARY]
set -euo pipefail
export LC_ALL=C # sort, join and comm must agree on one order

bin=${1:-./probescan}
[ -x "$bin" ] || { echo "summary.sh: $bin is not an executable (build it with make)" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/probescan-summary.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
passed=0 failed=0 skipped=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1" >&2; failed=$((failed + 1)); }

seed=${PS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "summary.sh: seed $seed"
# Three samples of random DNA (one gzip-compressed, one with no hit of some
# probes) and 40 random 5-mer probes, so counts vary and tie.
awk -v seed="$seed" 'BEGIN {
    srand(seed); split("ACGT", b, "")
    for (s = 1; s <= 3; s++) {
        f = (s == 1 ? "liver" : s == 2 ? "brain" : "kidney") ".fa"
        nrec = 1 + int(rand() * 4)
        for (r = 1; r <= nrec; r++) {
            len = 200 + int(rand() * 3000); seq = ""
            for (i = 0; i < len; i++) seq = seq b[1 + int(rand() * (s == 3 ? 2 : 4)) % (s == 3 ? 2 : 4)]
            print ">r" r > f; print seq > f
        }
        close(f)
    }
    for (p = 0; p < 40; p++) { seq = ""; for (i = 0; i < 5; i++) seq = seq b[1 + int(rand() * 4) % 4]; print ">p" p > "probes.fa"; print seq > "probes.fa" }
}'
gzip liver.fa
for s in liver.fa.gz brain.fa kidney.fa; do
    n=${s%%.*}
    "$bin" count -q -p probes.fa -o "$n.tsv" --stats "$n.json" "$s"
done
gzip liver.tsv
"$bin" count -q -p probes.fa --by-file -o matrix.tsv liver.fa.gz brain.fa kidney.fa
mkdir a b
"$bin" summary -o a --stats liver.json --stats brain.json --stats kidney.json liver.tsv.gz brain.tsv kidney.tsv
"$bin" summary -o b matrix.tsv --stats liver.json --stats brain.json --stats kidney.json

for f in probescan_samples_mqc.tsv probescan_top_mqc.tsv probescan_heatmap_mqc.tsv; do
    if cmp -s "a/$f" "b/$f"; then ok "$f: the same from totals tables and from the matrix"
    else bad "$f: totals tables and matrix differ"; diff "a/$f" "b/$f" | head -5 >&2 || true; fi
done

# The expected rows, from the tables themselves.
for n in liver brain kidney; do
    t=$n.tsv; [ -f "$t" ] || t=$n.tsv.gz
    zcat -f "$t" | tail -n +2 | cut -f 1,3 > "$n.counts"
    rec=$(sed -n 's/.*"records": \([0-9]*\), "bases": \([0-9]*\).*/\1/p' "$n.json" | head -1)
    bases=$(sed -n 's/.*"records": \([0-9]*\), "bases": \([0-9]*\).*/\2/p' "$n.json" | head -1)
    awk -F '\t' -v n="$n" -v rec="$rec" -v bases="$bases" '
        { p++; if ($2 > 0) { found++; hits += $2 } }
        END { printf "%s\t%d\t%d\t%d\t%s\t%s\n", n, found, p, hits, rec, bases }' "$n.counts"
done > want.samples
grep -v '^#' a/probescan_samples_mqc.tsv | tail -n +2 > got.samples
if cmp -s want.samples got.samples; then ok "samples: probes found, hits, records, bases"
else bad "samples table differs from awk's:"; diff want.samples got.samples | head -5 >&2 || true; fi

for n in liver brain kidney; do
    awk -F '\t' '$2 > 0 { print NR "\t" $1 "\t" $2 }' "$n.counts" | sort -t "$(printf '\t')" -k3,3nr -k1,1n | head -5 |
        awk -F '\t' -v n="$n" '{ s = s "\t" $2 " (" $3 ")"; k++ } END { while (k++ < 5) s = s "\t-"; print n s }'
done > want.top
grep -v '^#' a/probescan_top_mqc.tsv | tail -n +2 > got.top
if cmp -s want.top got.top; then ok "top probes, ties in probe-file order"
else bad "top probes differ from sort's:"; diff want.top got.top | head -5 >&2 || true; fi

# The heatmap: 30 rows, each a probe of the table, values log10(count + 1).
paste liver.counts brain.counts kidney.counts | awk -F '\t' '{ printf "%s\t%.3f\t%.3f\t%.3f\n", $1, log($2 + 1) / log(10), log($4 + 1) / log(10), log($6 + 1) / log(10) }' | sort > want.heat
rows=$(grep -vc '^#' a/probescan_heatmap_mqc.tsv)
head_ok=$(grep -v '^#' a/probescan_heatmap_mqc.tsv | head -1)
grep -v '^#' a/probescan_heatmap_mqc.tsv | tail -n +2 | sort > got.heat
if [ "$rows" = 31 ] && [ "$head_ok" = "$(printf 'Probe\tliver\tbrain\tkidney')" ] && [ -z "$(comm -13 want.heat got.heat)" ]; then
    ok "heatmap: 30 probes, log10(count + 1) per sample"
else bad "heatmap: $rows lines, header '$head_ok', rows not in the tables: $(comm -13 want.heat got.heat | head -2)"; fi
# ... and they are the 30 of largest variance (checked as: none left out varies more).
paste liver.counts brain.counts kidney.counts | awk -F '\t' '{
    a = log($2 + 1) / log(10); b = log($4 + 1) / log(10); c = log($6 + 1) / log(10); m = (a + b + c) / 3
    printf "%s\t%.12f\n", $1, (a-m)^2 + (b-m)^2 + (c-m)^2 }' | sort > var.all
cut -f 1 got.heat | sort > picked
minin=$(join -t "$(printf '\t')" var.all picked | cut -f 2 | sort -g | head -1)
maxout=$(join -t "$(printf '\t')" -v 1 var.all picked | cut -f 2 | sort -g | tail -1)
if awk -v a="$minin" -v b="${maxout:-0}" 'BEGIN { exit !(a + 1e-9 >= b) }'; then ok "heatmap: the 30 most variable probes"
else bad "heatmap: a probe left out varies more ($maxout) than one kept ($minin)"; fi

# One --stats file of a --by-file run gives the same records and bases; a
# sample no --stats input is named after loses the two columns, with a warning.
"$bin" count -q -p probes.fa --by-file -o m2.tsv --stats run.json liver.fa.gz brain.fa kidney.fa
mkdir c d
"$bin" summary -o c --stats run.json m2.tsv
if cmp -s a/probescan_samples_mqc.tsv c/probescan_samples_mqc.tsv; then ok "one --stats file of the matrix run"
else bad "one --stats file: samples differ"; diff a/probescan_samples_mqc.tsv c/probescan_samples_mqc.tsv | head -5 >&2 || true; fi
# The --stats file compressed, and inputs whose names JSON escapes (a quote
# and a backslash): the same records and bases.
cp brain.fa 'br"a\in.fa'
"$bin" count -q -p probes.fa --by-file -o m3.tsv --stats run3.json liver.fa.gz 'br"a\in.fa' kidney.fa
gzip run3.json
mkdir e
"$bin" summary -o e --stats run3.json.gz m3.tsv
if [ "$(grep -v '^#' e/probescan_samples_mqc.tsv | sed 's/^br"a\\in\t/brain\t/')" = "$(grep -v '^#' a/probescan_samples_mqc.tsv)" ]; then
    ok "a gzip --stats file, a quote and a backslash in an input's name"
else bad "a gzip --stats file with escaped names: $(grep -v '^#' e/probescan_samples_mqc.tsv | head -3)"; fi
# A damaged --stats file (cut inside an escape): refused with the line and
# column where JSON stops, not read as far as it goes.
printf '{"inputs": [{"path": "brain.fa\\u4' > cutesc.json
if ! "$bin" summary -o f --stats cutesc.json brain.tsv 2> err && grep -q "cutesc.json: not a --stats file: line 1, column [0-9]*: " err &&
    [ "$(wc -l < err)" = 1 ] && [ ! -e f ]; then
    ok "a --stats file cut inside an escape: refused ($(cat err))"
else bad "a --stats file cut inside an escape: $(cat err)"; fi
"$bin" summary -o d --stats liver.json m2.tsv 2> warn
if grep -q "warning: no input of the --stats files is named 'brain'" warn && [ "$(wc -l < warn)" = 1 ] &&
    [ "$(grep -v '^#' d/probescan_samples_mqc.tsv | head -1)" = "$(printf 'Sample\tProbes found\tProbes\tHits')" ]; then
    ok "a sample without --stats: no records column, one warning"
else bad "a sample without --stats: warning '$(cat warn)'"; fi

# One sample: no heatmap (MultiQC has nothing to compare).
mkdir one
"$bin" summary -o one brain.tsv
if [ -f one/probescan_samples_mqc.tsv ] && [ ! -e one/probescan_heatmap_mqc.tsv ]; then ok "one sample: no heatmap"
else bad "one sample: expected the samples file and no heatmap"; fi

# A re-run with one sample into a folder that holds an earlier run's heatmap:
# the heatmap goes (it would show the old samples beside the new), other
# files stay.
mkdir rerun
"$bin" summary -o rerun liver.tsv.gz brain.tsv kidney.tsv
touch rerun/notes.txt rerun/probescan_heatmap_mqc.tsv.orig
"$bin" summary -o rerun brain.tsv
if [ ! -e rerun/probescan_heatmap_mqc.tsv ] && [ -f rerun/notes.txt ] && [ -f rerun/probescan_heatmap_mqc.tsv.orig ] &&
    [ "$(grep -vc '^#' rerun/probescan_samples_mqc.tsv)" = 2 ]; then ok "a one-sample re-run removes the old heatmap, only it"
else bad "a one-sample re-run: $(ls rerun | tr '\n' ' ')"; fi

# Totals tables of count -m: one sample each, its count the `count` column,
# with or without the strand columns; not samples named count, forward, mm0.
"$bin" count -q -p probes.fa -m 2 -o mmtwo.tsv brain.fa
"$bin" count -q -p probes.fa -m 1 -s forward -o mmfwd.tsv kidney.fa
"$bin" count -q -p probes.fa -m 0 -o mmzero.tsv liver.fa.gz
for t in mmtwo mmfwd mmzero; do
    rm -rf "mq$t" && mkdir "mq$t"
    want=$(awk -F '\t' -v n="$t" 'NR > 1 { p++; if ($3 > 0) { f++; h += $3 } } END { printf "%s\t%d\t%d\t%d", n, f, p, h }' "$t.tsv")
    if "$bin" summary -o "mq$t" "$t.tsv" 2> err && [ "$(grep -v '^#' "mq$t/probescan_samples_mqc.tsv" | tail -n +2)" = "$want" ] &&
        [ ! -e "mq$t/probescan_heatmap_mqc.tsv" ]; then ok "count $(head -1 "$t.tsv" | cut -f 3- | tr '\t' ' '): one sample"
    else bad "$t.tsv: $(cat err) $(grep -v '^#' "mq$t/probescan_samples_mqc.tsv" 2>/dev/null | tail -n +2 | head -3)"; fi
done
mkdir mqboth
if "$bin" summary -o mqboth mmtwo.tsv mmfwd.tsv 2> err && [ "$(grep -v '^#' mqboth/probescan_heatmap_mqc.tsv | head -1)" = "$(printf 'Probe\tmmtwo\tmmfwd')" ]; then
    ok "two count -m tables: a heatmap of two samples"
else bad "two count -m tables: $(cat err) heatmap header $(grep -v '^#' mqboth/probescan_heatmap_mqc.tsv | head -1)"; fi

# A wide matrix: 40,000 samples x 20 probes. Memory stays near the table's
# numbers (the per-sample arrays took 8 KB a column, 330 MB here), and every
# column is read right.
awk -v seed="$seed" 'BEGIN {
    srand(seed); n = 40000
    printf "name\tsequence"; for (c = 1; c <= n; c++) printf "\ts%d", c; printf "\n"
    for (p = 1; p <= 20; p++) {
        printf "q%d\tACGTA", p
        for (c = 1; c <= n; c++) printf "\t%d", (rand() < 0.3 ? 0 : int(rand() * 1000))
        printf "\n"
    }
}' > wide.tsv
awk -F '\t' 'NR > 1 { for (c = 3; c <= NF; c++) { h[c] += $c; if ($c > 0) f[c]++ } }
    END { for (c = 3; c <= NF; c++) printf "s%d\t%d\t20\t%d\n", c - 2, f[c], h[c] }' wide.tsv > want.wide
if command -v python3 > /dev/null 2>&1; then
    # ru_maxrss of the child, in KiB: peak resident memory of summary alone.
    mkdir wide
    peak=$(python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if r.returncode == 0 else -1)' "$bin" summary -o wide wide.tsv)
    grep -v '^#' wide/probescan_samples_mqc.tsv | tail -n +2 > got.wide || true
    if [ "$peak" -gt 0 ] && [ "$peak" -lt 150000 ] && cmp -s want.wide got.wide &&
        [ "$(grep -v '^#' wide/probescan_heatmap_mqc.tsv | head -1 | awk -F '\t' '{ print NF }')" = 40001 ]; then
        ok "40,000 samples: $((peak / 1024)) MiB at most, every column right"
    else bad "40,000 samples: peak ${peak} KiB (limit 150000), samples rows differ: $(diff want.wide got.wide | head -3)"; fi
else
    skipped=$((skipped + 1))
    echo "summary.sh: 1 skipped (tool: python3 not installed, to read the peak memory)"
fi

# --stats files re-saved by another JSON writer (python's json module: all
# on one line, non-ASCII names escaped as \uXXXX; or indented, keys sorted)
# give the same records and bases.
if command -v python3 > /dev/null 2>&1; then
    cp brain.fa "bréin.fa"
    "$bin" count -q -p probes.fa --by-file -o m4.tsv --stats run4.json liver.fa.gz "bréin.fa" kidney.fa
    python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"))' run4.json compact.json
    python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"), indent=7, sort_keys=True)' run4.json sorted.json
    for j in compact sorted; do
        rm -rf "re$j" && mkdir "re$j"
        if "$bin" summary -o "re$j" --stats "$j.json" m4.tsv 2> err &&
            [ "$(grep -v '^#' "re$j/probescan_samples_mqc.tsv" | sed 's/^bréin\t/brain\t/')" = "$(grep -v '^#' a/probescan_samples_mqc.tsv)" ]; then
            ok "--stats re-saved by python's json ($j$([ "$j" = compact ] && grep -q 'br\\u00e9in' compact.json && echo ', \u00e9 escaped'))"
        else bad "--stats re-saved by python's json ($j): $(cat err) $(grep -v '^#' "re$j/probescan_samples_mqc.tsv" 2>/dev/null | head -3)"; fi
    done
else
    skipped=$((skipped + 2))
    echo "summary.sh: 2 skipped (tool: python3 not installed, to re-save a --stats file)"
fi

# The command line: --version as probescan --version, -q accepted, -s
# refused (it was --stats here and is --strand in count), -o makes its
# folders, --help to a full disk is an error.
if [ "$("$bin" summary --version)" = "$("$bin" --version)" ]; then ok "summary --version"
else bad "summary --version: $("$bin" summary --version 2>&1)"; fi
mkdir quiet
if "$bin" summary -q -o quiet brain.tsv 2> err && [ ! -s err ] && [ -f quiet/probescan_samples_mqc.tsv ]; then ok "summary -q"
else bad "summary -q: $(cat err)"; fi
if ! "$bin" summary -s brain.json -o sopt brain.tsv 2> err && grep -q -- "--stats FILE" err && [ "$(wc -l < err)" = 1 ] && [ ! -e sopt ]; then
    ok "summary -s: refused, pointing to --stats ($(cat err))"
else bad "summary -s: $(cat err)"; fi
if "$bin" summary -o new/deeper/report brain.tsv 2> err && [ -f new/deeper/report/probescan_top_mqc.tsv ]; then
    ok "-o new/deeper/report: the folders are made"
else bad "-o new/deeper/report: $(cat err)"; fi
touch plainfile
if ! "$bin" summary -o plainfile/report brain.tsv 2> err && grep -q "plainfile exists and is not a folder" err; then
    ok "-o under a file: refused ($(cat err))"
else bad "-o under a file: $(cat err)"; fi
if ! "$bin" summary -o '' brain.tsv 2> err && grep -q "empty folder name" err; then ok "-o '': refused"
else bad "-o '': $(cat err)"; fi
if [ -w /dev/full ]; then
    if ! "$bin" summary --help > /dev/full 2> err && grep -q "error writing standard output" err; then ok "summary --help to a full disk: an error"
    else bad "summary --help > /dev/full: exit 0 or '$(cat err)'"; fi
else
    skipped=$((skipped + 1))
    echo "summary.sh: 1 skipped (file: /dev/full not writable)"
fi

# Refused inputs: one line, non-zero exit, no file written.
refuse() { # what expected-message-part args...
    local what=$1 msg=$2; shift 2
    rm -rf r && mkdir r
    if "$bin" summary -o r "$@" 2> err; then bad "$what: accepted"
    elif ! grep -q -- "$msg" err || [ "$(wc -l < err)" != 1 ] || [ -n "$(ls r)" ]; then
        bad "$what: message '$(cat err)', files: $(ls r | tr '\n' ' ')"
    else ok "$what: refused ($(cat err))"; fi
}
refuse "a sample twice" "appears in two tables" brain.tsv brain.tsv
head -n 20 brain.tsv > short.tsv
refuse "fewer probe rows" "short.tsv: 19 probe rows" brain.tsv short.tsv
"$bin" count -q -p probes.fa --by-record -o rec.tsv brain.fa
refuse "a --by-record table" "a --by-record table" rec.tsv
refuse "no tables" "no tables given"
awk -F '\t' -v OFS='\t' 'NR == 3 { $3 = "12x" } { print }' brain.tsv > notcount.tsv
refuse "a count that is not a number" "notcount.tsv: line 3: column 'count': '12x' is not a count" brain.tsv notcount.tsv
# Ten whole lines, then the eleventh without its last character and newline:
# always inside a row, whatever the seed makes the rows' lengths.
{ head -n 10 brain.tsv; sed -n 11p brain.tsv | tr -d '\n' | sed 's/.$//'; } > cut.tsv
refuse "a table cut inside a row" "cut.tsv: line [0-9]*: the table ends inside a row" brain.tsv cut.tsv
refuse "a missing table" "nothere.tsv: cannot open" brain.tsv nothere.tsv

# --stats files that are not count's: refused with one line naming them.
refuse "a --stats file that is not JSON" "brain.tsv: not a --stats file: line 1, column [0-9]*: '\\[' or '{' expected" --stats brain.tsv brain.tsv
printf '{"records": 3, "bases": 9}\n' > noinputs.json
refuse "JSON without an inputs list" 'noinputs.json: valid JSON, but without the "inputs" list' --stats noinputs.json brain.tsv
printf '{"inputs": [{"path": "brain.fa", "bases": 9}]}\n' > norecords.json
refuse "an input without records" 'norecords.json: inputs\[0\]: no "records"' --stats norecords.json brain.tsv
printf '{"inputs": [{"path": "brain.fa", "records": -1, "bases": 9}]}\n' > negative.json
refuse "negative records" 'negative.json: inputs\[0\]: "records" is not a count' --stats negative.json brain.tsv
refuse "one --stats file twice" "are the same file" --stats brain.json --stats ./brain.json brain.tsv

if command -v multiqc > /dev/null 2>&1; then
    if multiqc -q -f -o mq a > mq.log 2>&1 && [ -f mq/multiqc_report.html ]; then
        miss=""
        for id in probescan_samples_table probescan_top_table probescan_heatmap_plot; do
            grep -q "$id" mq/multiqc_report.html || miss="$miss $id"
        done
        if [ -z "$miss" ]; then ok "multiqc $(multiqc --version 2>/dev/null | awk '{print $NF}'): the three probescan sections"
        else bad "multiqc report lacks:$miss"; fi
    else bad "multiqc failed on the summary files:"; tail -5 mq.log >&2; fi
else
    skipped=1
    echo "summary.sh: 1 skipped (tool: multiqc not installed)"
fi
echo "summary.sh: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
