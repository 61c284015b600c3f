#!/usr/bin/env bash
# run.sh - `make test`: runs every part of the test suite, each to its end
# even when an earlier one failed, shows its output, and ends with one line:
#
#   make test: N passed, N failed, N skipped (gpu: <reason>; data: missing <files>)
#
# ("none skipped" where nothing of that kind was skipped; data names every
# missing file any skip named, then the data reasons that named none; skips
# for any other reason follow as "; <kind>: <reason>"). Exits non-zero when
# any part failed.
#
# Usage: tests/run.sh PROBESCAN CHECK_BINARY
#        PS_TEST_PARTS="merge.sh prosite.sh" tests/run.sh ...   (some parts only)
#
# What each part prints for this script to count (the last counts line of a
# part is its total):
#   Check:   "NN%: Checks: N, Failures: N, Errors: N"
#   scripts: "[who: ]N passed, N failed[, N skipped]"
#   skips:   "who: N skipped (kind: reason)", one line per group skipped,
#            kind "gpu", "data" or another word
# A part that exits non-zero without a failure counted counts as one failure;
# a part that prints no counts line counts as one failure too, and so does one
# that lets htslib's own log through ("[E::func] ..."): probescan turns it off
# and says what went wrong in its own line, and a green run is quiet.
set -u

[ $# -eq 2 ] || { echo "usage: tests/run.sh PROBESCAN CHECK_BINARY" >&2; exit 2; }
bin=$1
check=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
log=$(mktemp -d "${TMPDIR:-/tmp}/probescan-run.XXXXXX") || exit 1
trap 'rm -rf "$log"' EXIT

passed=0 failed=0 skipped=0
declare -A why=()   # kind -> first reason given
kinds=()            # kinds in the order first seen
# Data skips: every missing file they name, once, in the order first named,
# and the reasons that name none; the summary lists them all, so that one
# run tells every file to fetch.
data_files=() data_other=()
declare -A data_seen=()
data_reason() {
    local f named=0
    while IFS= read -r f; do
        [ -n "$f" ] || continue
        named=1
        [ -z "${data_seen[$f]+set}" ] || continue
        data_seen[$f]=1
        data_files+=("$f")
    done < <(grep -oE '[A-Za-z0-9_+-][A-Za-z0-9_.+-]*\.(fa|fq|fasta|fastq|2bit|bam|cram|dat|tar)(\.gz)?([^A-Za-z0-9_.]|$)' <<<"$1" |
        sed -E 's/[^A-Za-z0-9_.+-]$//')
    if [ "$named" -eq 0 ] && [ -z "${data_seen["? $1"]+set}" ]; then
        data_seen["? $1"]=1
        data_other+=("$1")
    fi
}

# part NAME COMMAND...: runs it, its output shown and kept, then counted.
# PS_TEST_PARTS, where set, runs only the parts it names (words: unit,
# cli.sh, merge.sh ...).
part() {
    local name=$1
    shift
    if [ -n "${PS_TEST_PARTS:-}" ]; then
        local key=${name#tests/}
        case $name in "unit tests"*) key=unit ;; esac
        case " $PS_TEST_PARTS " in *" $key "*) ;; *) return 0 ;; esac
    fi
    echo "== $name"
    "$@" 2>&1 | tee "$log/out"
    local rc=${PIPESTATUS[0]}
    local counts
    counts=$(awk '
        { sub(/\r$/, "") }
        match($0, /[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+/) {
            split(substr($0, RSTART, RLENGTH), f, /[^0-9]+/)
            p = f[2] - f[3] - f[4]; x = f[3] + f[4]; s = 0; have = 1; next
        }
        match($0, /(^|[: ])[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$/) {
            t = substr($0, RSTART, RLENGTH); sub(/^[: ]/, "", t)
            split(t, f, /[^0-9]+/)
            p = f[1]; x = f[2]; s = (3 in f && f[3] != "") ? f[3] : 0; have = 1; next
        }
        END { if (have) print p, x, s; else print "none" }' "$log/out")
    local p=0 x=0 s=0
    if [ "$counts" = none ]; then
        echo "run.sh: $name printed no counts line: counted as 1 failure"
        x=1
    else
        read -r p x s <<<"$counts"
    fi
    if [ "$rc" -ne 0 ] && [ "$x" -eq 0 ]; then
        echo "run.sh: $name exited with status $rc: counted as 1 failure"
        x=1
    fi
    local noise
    noise=$(grep -cE '^\[[EW]::[A-Za-z0-9_]+\] ' "$log/out")
    if [ "$noise" -gt 0 ]; then
        echo "run.sh: $name printed $noise lines of htslib's own log: counted as 1 failure"
        x=$((x + 1))
    fi
    # Skip lines: "who: N skipped (kind: reason)". A part that prints its total
    # skipped on its counts line has it there already; else these are summed.
    local grouped=0 line n kind reason
    while IFS= read -r line; do
        [[ $line =~ ^.*:\ ([0-9]+)\ skipped\ \(([a-z]+):\ (.*)\)$ ]] || continue
        n=${BASH_REMATCH[1]} kind=${BASH_REMATCH[2]} reason=${BASH_REMATCH[3]}
        grouped=$((grouped + n))
        [ "$kind" != data ] || data_reason "$reason"
        if [ -z "${why[$kind]+set}" ]; then
            why[$kind]=$reason
            kinds+=("$kind")
        fi
    done <"$log/out"
    [ "$s" -eq 0 ] && s=$grouped
    passed=$((passed + p)) failed=$((failed + x)) skipped=$((skipped + s))
    echo "== $name: $p passed, $x failed, $s skipped"
}

part "unit tests ($check)" "$check"
part "tests/cli.sh" env PROBESCAN="$bin" bash "$here/cli.sh"
part "tests/manpage.sh" bash "$here/manpage.sh" "$bin"
part "tests/firstrun.sh" bash "$here/firstrun.sh" "$bin" "$check"
part "tests/merge.sh" bash "$here/merge.sh" "$bin"
part "tests/summary.sh" bash "$here/summary.sh" "$bin"
part "tests/kmerset.sh" bash "$here/kmerset.sh" "$bin"
part "tests/locate.sh" bash "$here/locate.sh" "$bin"
part "tests/peers.sh" bash "$here/peers.sh" "$bin"
part "tests/prosite.sh" bash "$here/prosite.sh" "$bin"
part "tests/profiles.sh" bash "$here/profiles.sh" "$bin"
part "tests/guides.sh" bash "$here/guides.sh" "$bin"

data_why=
if [ "${#data_files[@]}" -gt 0 ]; then
    data_why="missing $(printf '%s, ' "${data_files[@]}")"
    data_why=${data_why%, }
fi
for r in "${data_other[@]}"; do data_why="$data_why${data_why:+, }$r"; done
reasons="gpu: ${why[gpu]:-none skipped}; data: ${data_why:-none skipped}"
for k in "${kinds[@]}"; do
    case $k in gpu | data) ;; *) reasons="$reasons; $k: ${why[$k]}" ;; esac
done
echo "make test: $passed passed, $failed failed, $skipped skipped ($reasons)"
[ "$failed" -eq 0 ]
