#!/usr/bin/env bash
# firstrun.sh - what a new user meets first:
#   - standard output that cannot be written (a full disk: /dev/full) is an
#     error for every command, the help and the version included: exit 1 and
#     one line "probescan: error writing standard output: ...";
#   - the README's Set up puts probescan on the PATH before the first example
#     that calls it, and the examples on the bundled data run as pasted;
#   - a PS_DATA holding only some of the real data runs what it can and skips
#     the rest, naming the missing file (the unit tests and merge.sh; the
#     E. coli genome comes from fasta/, in guides.sh too), and make test's
#     last line names every missing file;
#   - Set up's `make deps` serves root and users alike; the examples on
#     prosite.dat run on one with patterns and a profile;
#   - the Makefile says NO_CUDA=1 where it was given (so does probescan
#     version), and make after make NO_CUDA=1 compiles the C code once.
#
#   bash tests/firstrun.sh PROBESCAN [CHECK_BINARY]
#
# Ends with "firstrun.sh: N passed, N failed, N skipped"; exits non-zero on
# any failure.
set -u
export LC_ALL=C

bin=${1:-./probescan}
check=${2:-}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
case $check in "" | /*) ;; *) check=$PWD/$check ;; esac
[ -x "$bin" ] || { echo "firstrun.sh: $bin is not an executable (build it with make)" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/probescan-firstrun.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2

passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }
skip() { skipped=$((skipped + $1)); echo "firstrun.sh: $1 skipped ($2: $3)"; }

printf '>r1\nACGTACGTGAATTC\n' > a.fa
printf 'p1\tGAATTC\np2\tACGT\n' > p.tsv
printf '>r2\nGAATTCC\n' > b.fa
"$bin" count -q -p p.tsv -o t.tsv a.fa && "$bin" count -q -p p.tsv -o u.tsv b.fa || bad "count of a tiny input failed"

# --- standard output that cannot be written ---
# full DESC ARGS...: probescan ARGS > /dev/full must exit 1 with one line
# "probescan: ..."; the help and the version (written by main.c's flush) name
# standard output.
full() {
    local desc=$1
    shift
    "$bin" "$@" > /dev/full 2> err.txt
    local rc=$?
    local want='^probescan: '
    case " $* " in *" --help "* | *" --version "* | " version " | "  ") want='^probescan: error writing standard output: ' ;; esac
    if [ "$rc" -ne 1 ]; then
        bad "$desc to a full disk: exit status $rc, not 1 ($(head -2 err.txt))"
    elif [ "$(wc -l < err.txt)" -ne 1 ] || ! grep -q "$want" err.txt; then
        bad "$desc to a full disk: not one line '$want...': $(head -3 err.txt)"
    else
        ok
    fi
}
if [ -w /dev/full ]; then
    full "probescan --help" --help
    full "probescan with no arguments (help)"
    full "probescan --version" --version
    full "probescan version" version
    for cmd in count locate merge summary; do
        full "probescan $cmd --help" "$cmd" --help
        # --version where the command's help lists it
        if "$bin" "$cmd" --help 2> /dev/null | grep -qE -- '(^|[ ,])--version([ ,]|$)'; then
            full "probescan $cmd --version" "$cmd" --version
        fi
    done
    full "count's table" count -q -p p.tsv a.fa
    full "locate's sites" locate -p p.tsv a.fa
    full "merge's table" merge t.tsv u.tsv
    # The same commands to a file: exit 0 (the failures above are the disk's).
    if "$bin" --help > h.txt && "$bin" version > v.txt && "$bin" count --help > c.txt && [ -s h.txt ] && [ -s c.txt ]; then
        ok
    else
        bad "--help, version or count --help to a file failed"
    fi
else
    skip 1 platform "no writable /dev/full: write errors on standard output"
fi

# --- the README: Set up before the examples ---
readme=$top/README.md
if [ ! -r "$readme" ]; then
    skip 2 source "no README.md beside tests/: the README's examples"
else
    # The first indented line that runs probescan, and the first that puts it
    # on the PATH (make install, or PATH=...).
    first_use=$(grep -nE '^    +probescan [a-z]' "$readme" | head -1 | cut -d: -f1)
    first_path=$(grep -nE '^    +(sudo )?make( [A-Z_]+=[^ ]+)* install|^    +export PATH=' "$readme" | head -1 | cut -d: -f1)
    if [ -z "$first_use" ]; then
        bad "README.md: no example that calls probescan"
    elif [ -z "$first_path" ] || [ "$first_path" -gt "$first_use" ]; then
        bad "README.md: line $first_use calls probescan before Set up puts it on the PATH (${first_path:+line $first_path})"
    else
        ok
    fi
    # The examples on the bundled data, as pasted, with the built probescan on
    # the PATH as Set up puts it, in a folder that has the tree's fasta/ (so
    # that what they write stays out of the tree).
    mkdir ex
    ln -s "$top/fasta" ex/fasta
    n=0
    while IFS= read -r line; do
        n=$((n + 1))
        cmd=${line#"${line%%[! ]*}"}
        cmd=${cmd%%>*}
        if ! (cd ex && PATH=$(dirname "$bin"):$PATH && eval "$cmd") > ex.out 2> ex.err; then
            bad "README.md example fails as pasted: $cmd: $(head -2 ex.err)"
        elif [ ! -s ex.out ]; then
            bad "README.md example wrote nothing: $cmd"
        else
            ok
        fi
    done < <(grep -E '^    +probescan [a-z]+ .*fasta/' "$readme")
    [ "$n" -gt 0 ] || bad "README.md: no example on the bundled data (fasta/)"
fi

# --- a PS_DATA with only some of the files ---
mkdir partial
ln -s "$top/fasta/ecoli_K12_MG1655.fa.gz" partial/
if [ -z "$check" ] || [ ! -x "$check" ]; then
    skip 1 build "no unit-test binary given: the real-data suite on a partial PS_DATA"
else
    # Only the data suite: its E. coli tests run, the others skip naming their files.
    PS_DATA=$work/partial CK_RUN_SUITE=data "$check" > ck.out 2>&1
    rc=$?
    if [ "$rc" -ne 0 ]; then
        bad "unit tests on a partial PS_DATA: exit status $rc: $(grep -v '^ok' ck.out | tail -3)"
    elif ! grep -qE '^100%: Checks: [1-9]' ck.out; then
        bad "unit tests on a partial PS_DATA ran no E. coli check: $(tail -3 ck.out)"
    elif ! grep -qE '^suite data: [0-9]+ skipped \(data: .*yeast_S288C_R64-1-1' ck.out; then
        bad "unit tests on a partial PS_DATA did not say which file was missing: $(grep skipped ck.out)"
    else
        ok
    fi
fi
PS_DATA=$work/partial bash "$here/merge.sh" "$bin" > merge.out 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
    bad "merge.sh on a partial PS_DATA: exit status $rc: $(tail -3 merge.out)"
elif ! grep -qE '^merge\.sh: [0-9]+ skipped \(data: no ont_cDNA_5k\.fq\.gz' merge.out; then
    bad "merge.sh on a partial PS_DATA did not say which file was missing: $(grep skipped merge.out)"
else
    ok
fi

# --- the README's Set up: one instruction for root and for a user ---
if [ -r "$readme" ]; then
    # make deps installs through sudo itself; `sudo make deps` fails where
    # root has no sudo (a container).
    if grep -qE '^    +sudo make( [A-Z_]+=[^ ]+)* deps' "$readme"; then
        bad "README.md: 'sudo make deps' fails for root without sudo: $(grep -nE '^    +sudo make.* deps' "$readme" | head -1)"
    elif ! grep -qE '^    +make deps' "$readme"; then
        bad "README.md: Set up has no 'make deps'"
    else
        ok
    fi
    # The examples on prosite.dat, run on one that has a pattern and a
    # profile, as every real prosite.dat has both.
    mkdir pd
    m=$(printf 'ACDEFGHIKLMNPQRSTVWY' | sed 's/./&\n/g' | awk 'NF { printf "%s%s", (n++ ? "," : ""), ($1 == "C" ? 10 : -5) }')
    {
        printf 'ID   TEST_PAT; PATTERN.\nAC   PS99901;\nPA   C-x-H.\n//\n'
        printf 'ID   TEST_FREQ; PATTERN.\nAC   PS99902;\nCC   /SKIP-FLAG=TRUE;\nPA   K-x-L.\n//\n'
        printf "ID   TEST_PROFILE; MATRIX.\nAC   PS99905;\nMA   /GENERAL_SPEC: ALPHABET='ACDEFGHIKLMNPQRSTVWY'; LENGTH=1;\n"
        printf 'MA   /DISJOINT: DEFINITION=PROTECT; N1=1; N2=1;\nMA   /NORMALIZATION: MODE=1; FUNCTION=LINEAR; R1=0.5; R2=0.1;\n'
        printf 'MA   /CUT_OFF: LEVEL=0; SCORE=10; N_SCORE=2.0; MODE=1;\n'
        printf 'MA   /DEFAULT: D=-20; I=-20; B1=0; E1=0; MI=-100; MD=-100; IM=-100; DM=-100;\n'
        printf "MA   /M: SY='C'; M=%s;\n//\n" "$m"
    } > pd/prosite.dat
    printf '>p1\nMKCAHCAAHKDLCAAAH\n>p2\nAMKCHKDEL\n' > pd/prot.fa
    n=0
    while IFS= read -r line; do
        n=$((n + 1))
        cmd=${line#"${line%%[! ]*}"}
        cmd=${cmd%%>*}
        cmd=${cmd//uniprot_sprot.fasta.gz/prot.fa}
        cmd=${cmd//proteins.fa/prot.fa}
        if ! (cd pd && PATH=$(dirname "$bin"):$PATH && eval "$cmd") > pd.out 2> pd.err; then
            bad "README.md example fails on a prosite.dat of a pattern and a profile: $cmd: $(head -2 pd.err)"
        else
            ok
        fi
    done < <(grep -E '^    +probescan (count|locate) .*-p prosite\.dat' "$readme")
    [ "$n" -gt 0 ] || bad "README.md: no example on prosite.dat"
fi

# --- the Makefile: what it says of CUDA, and what make rebuilds ---
if [ ! -r "$top/Makefile" ] || [ ! -d "$top/src" ] || ! command -v make >/dev/null || ! command -v cc >/dev/null; then
    skip 3 build "no Makefile, src/, make or cc: the Makefile's CUDA notes and rebuilds"
else
    mkdir mk
    cp -r "$top/Makefile" "$top/src" "$top/kernels" mk/
    # NO_CUDA=1 is said as the reason, by make and by the program.
    make -C mk NO_CUDA=1 CFLAGS=-O0 -j2 > mk.log 2>&1
    rc=$?
    if [ "$rc" -ne 0 ]; then
        bad "make NO_CUDA=1 in a copy of the tree: status $rc: $(tail -3 mk.log)"
    elif ! grep -q 'NO_CUDA=1' mk.log || grep -q 'nvcc not found' mk.log; then
        bad "make NO_CUDA=1 does not say NO_CUDA=1: $(grep '^probescan:' mk.log)"
    elif ! mk/probescan version | grep -q 'built without CUDA (NO_CUDA=1)'; then
        bad "probescan version of a NO_CUDA=1 build: $(mk/probescan version | grep CUDA)"
    else
        ok
    fi
    # make with nvcc after that: the C code is not compiled again, only what
    # says how CUDA was built. A stand-in nvcc writes empty objects beside an
    # empty CUDA runtime; the link then fails, which is not what is checked.
    mkdir -p cuda/bin cuda/lib64
    printf '#!/bin/sh\nout=\nwhile [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done\n[ -z "$out" ] || : | cc -x c -c -o "$out" -\n' > cuda/bin/nvcc
    chmod +x cuda/bin/nvcc
    ar rc cuda/lib64/libcudart_static.a 2> /dev/null
    if [ "$rc" -ne 0 ] || [ ! -f cuda/lib64/libcudart_static.a ]; then
        skip 1 build "no NO_CUDA=1 build or no ar: make with nvcc after it"
    else
        make -C mk NVCC="$work/cuda/bin/nvcc" CFLAGS=-O0 -j2 > mk2.log 2>&1
        again=$(grep -oE -- '-c -o build/src/[A-Za-z0-9_]+\.o' mk2.log | sed 's|.*/||' | sort -u | tr '\n' ' ')
        if ! grep -q "$work/cuda/bin/nvcc" mk2.log; then
            bad "make NVCC=stand-in did not build the kernels: $(head -3 mk2.log)"
        elif [ "$again" != "main.o " ]; then
            bad "make after make NO_CUDA=1 compiled again: $again"
        else
            ok
        fi
    fi
    rm -rf mk
fi

# --- make test's last line names every missing data file ---
if [ -r "$here/run.sh" ]; then
    PS_DATA=$work/partial PS_TEST_PARTS="merge.sh prosite.sh profiles.sh" bash "$here/run.sh" "$bin" "${check:-none}" > run.out 2>&1
    last=$(tail -1 run.out)
    missing=
    for f in ont_cDNA_5k.fq.gz prosite_r14.dat uniprot_20k.fa.gz; do
        case $last in *"$f"*) ;; *) missing="$missing $f" ;; esac
    done
    if [ -n "$missing" ]; then bad "make test's summary on a partial PS_DATA leaves out$missing: $last"; else ok; fi
fi
# guides.sh takes E. coli from fasta/ where PS_DATA lacks it: on a PS_DATA
# without it, what it skips for is no genome.
mkdir nopeers empty
PS_DATA=$work/empty PS_PEERS=$work/nopeers bash "$here/guides.sh" "$bin" > guides.out 2>&1
if grep -q 'skipped (data: .*ecoli' guides.out; then
    bad "guides.sh does not take E. coli from fasta/: $(grep skipped guides.out | head -1)"
elif ! grep -qE 'skipped \((data|tool): ' guides.out; then
    bad "guides.sh without Cas-OFFinder's source: $(tail -2 guides.out)"
else
    ok
fi

echo "firstrun.sh: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
