#!/usr/bin/env bash
# Runs the CLI under valgrind's memcheck on small real and made-up inputs:
# every run must be free of memory errors and leaks. Usage: valgrind.sh BIN
set -uo pipefail
bin=${1:-./probescan}
data=${PS_DATA:-../shared/data}
command -v valgrind >/dev/null ||
    { echo "valgrind.sh: valgrind not installed (sudo apt-get install -y valgrind): nothing checked" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0 skipped=0
vg() { # vg EXPECTED_EXIT ARGS...
    local want=$1; shift
    valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        "$bin" "$@" >"$work/out" 2>"$work/err"
    local rc=$?
    if [ "$rc" = "$want" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL (exit $rc, wanted $want): $*"; sed 's/^/    /' "$work/err" | head -20; fi
}
printf '>r1 one\nGAATTCnnGAATTC\n>r2\n\n>r3\ngaattcGAATTc\n' > "$work/a.fa"
printf 'pal\tGAATTC\nfw\tGAATTC\nx\tAATTCG\n' > "$work/p.txt"
printf '@r1\nACGTN\n+\nIIIII\n@r2\nAC\n+\nII\n' > "$work/b.fq"
printf '@r1\nACGT\n+\nIII\n' > "$work/bad.fq"
vg 0 count -t 2 -p "$work/p.txt" "$work/a.fa"
vg 0 count -t 2 --by-record -p "$work/p.txt" "$work/a.fa" "$work/b.fq"
vg 0 count -t 3 --by-file --stats "$work/s.json" -o "$work/o.tsv" -p "$work/p.txt" "$work/a.fa" "$work/b.fq"
vg 0 count -t 2 --index kmer-set -p "$work/p.txt" "$work/a.fa" "$work/b.fq"
vg 0 count -t 2 --index kmer-set --by-record -p "$work/p.txt" "$work/a.fa" "$work/b.fq"
vg 0 locate -t 2 -p "$work/p.txt" "$work/a.fa" "$work/b.fq"
vg 0 locate -t 2 -m 1 --format tsv --max-hits 2 --stats "$work/l.json" -o "$work/l.bed.gz" -p "$work/p.txt" "$work/a.fa"
printf 'v\tG-x(0,3)-C\nw\t<G-A\n' > "$work/pat.txt"
vg 0 locate -t 3 -m 1 --format tsv -p "$work/pat.txt" "$work/a.fa" "$work/b.fq"
vg 1 count -p "$work/p.txt" "$work/bad.fq"
vg 1 locate -p "$work/p.txt" "$work/bad.fq"
vg 1 count -p "$work/missing.txt" "$work/a.fa"
# The E. coli genome ships in fasta/ (PS_DATA's copy where it has one); the
# reads are in PS_DATA only, and their run skips, naming the file, without.
ecoli=$data/ecoli_K12_MG1655.fa.gz
[ -f "$ecoli" ] || ecoli=$(dirname "$0")/../fasta/ecoli_K12_MG1655.fa.gz
gzip -dc "$ecoli" | head -c 400000 > "$work/e.fa"
awk 'NR > 1 && NR % 500 == 0 { print substr($0, 1, 21) }' "$work/e.fa" > "$work/e.txt"
vg 0 count -t 3 -p "$work/e.txt" "$work/e.fa"
vg 0 locate -t 2 -m 1 -p "$work/e.txt" "$work/e.fa"
# Guides: a PAM and limits (the guide engine, and the pattern engine for a
# class in a spacer), Cas-OFFinder's input file and rows.
awk 'NR <= 20 { print "g" NR "\t" substr($0, 1, 20) "\t" NR % 4 }' "$work/e.txt" > "$work/g.tsv"
vg 0 count -t 2 --pam NGG -m 2 -p "$work/g.tsv" "$work/e.fa"
vg 0 locate -t 2 -m 3 --format cas-offinder -p "$work/g.tsv" "$work/e.fa"
printf 'ry\tACGTRYACGTACGTACGTAC\n' >> "$work/g.tsv"
vg 0 locate -t 2 --pam5 TTTV -m 2 --format tsv -p "$work/g.tsv" "$work/e.fa"
{ echo "$work/e.fa"; echo NNNNNNNNNNNNNNNNNNNNNRG; awk 'NR <= 5 { print substr($0, 1, 20) "NNN 3 id" NR }' "$work/e.txt"; } > "$work/cof.txt"
vg 0 locate -t 2 --format cas-offinder -p "$work/cof.txt"
vg 0 count -t 1 --by-record -p "$work/cof.txt"
# Bulges: the bulge engine, count's table, Cas-OFFinder 3's rows and TSV.
{ echo "$work/e.fa"; echo NNNNNNNNNNNNNNNNNNNNNGG 1 2; awk 'NR <= 5 { print substr($0, 1, 20) "NNN 3" }' "$work/e.txt"; } > "$work/cofb.txt"
vg 0 locate -t 2 --format cas-offinder -p "$work/cofb.txt"
vg 0 count -t 2 -p "$work/cofb.txt"
awk 'NR <= 5' "$work/g.tsv" > "$work/g5.tsv"
vg 0 locate -t 2 --pam5 TTTV -m 2 --dna-bulge 2 --rna-bulge 1 --format tsv -p "$work/g5.tsv" "$work/e.fa"
if [ -f "$data/illumina_hiseqX_10k.fq.gz" ]; then
    vg 0 count -t 2 --by-record -p "$work/e.txt" "$data/illumina_hiseqX_10k.fq.gz"
else
    echo "valgrind.sh: 1 skipped (data: no illumina_hiseqX_10k.fq.gz in $data)"
    skipped=1
fi
vg 0 merge "$work/o.tsv" "$work/o.tsv"
mkdir "$work/mqc"
vg 0 summary -o "$work/mqc" --stats "$work/s.json" "$work/o.tsv"
vg 1 summary -o "$work/mqc" "$work/o.tsv" "$work/o.tsv"
echo "valgrind.sh: $pass passed, $fail failed, $skipped skipped"
[ "$fail" = 0 ]
