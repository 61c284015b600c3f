#!/usr/bin/env bash
# Checks that probescan.1 and the built-in help agree:
#   - every long option printed by `probescan count --help`, `probescan
#     locate --help`, `probescan merge --help` and `probescan summary --help`
#     is documented in probescan.1;
#   - every long option the man page lists under COUNT / LOCATE / MERGE / SUMMARY OPTIONS
#     is one the command's help knows (no stale or invented options).
# Each option checked either way is one check; ends with
# "manpage.sh: N passed, N failed".
# Usage: tests/manpage.sh [PROBESCAN_BINARY [MANPAGE]]
set -euo pipefail

bin=${1:-./probescan}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
man=${2:-$here/../probescan.1}

[ -x "$bin" ] || { echo "manpage.sh: $bin is not an executable (build it with make)" >&2; exit 2; }
[ -r "$man" ] || { echo "manpage.sh: cannot read $man" >&2; exit 2; }

# Long options (--word-word) in a text, one per line, sorted, unique.
long_opts() { grep -oE -- '--[a-z][a-z0-9]*(-[a-z0-9]+)*' | sort -u; }

# The man page as plain text: roff hyphens and font changes removed.
plain=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(mu/x/g' "$man")

# The long options of the tagged paragraphs (.TP) of one section of the page.
section_opts() {
    printf '%s\n' "$plain" | awk -v want="$1" '
        /^\.SH/ { sec = $0; sub(/^\.SH[ \t]+/, "", sec); gsub(/"/, "", sec); tp = 0; next }
        /^\.TP/ { tp = 1; next }
        tp { if (sec == want) print; tp = 0 }' | long_opts
}

pass=0 fail=0
for cmd in count locate merge summary; do
    help=$("$bin" "$cmd" --help) || { echo "manpage.sh: '$bin $cmd --help' failed" >&2; exit 1; }
    opts=$(printf '%s\n' "$help" | long_opts)
    if [ -z "$opts" ]; then
        echo "manpage.sh: '$bin $cmd --help' lists no long options" >&2
        fail=$((fail + 1))
        continue
    fi
    n=0
    for o in $opts; do
        n=$((n + 1))
        # Whole option only: --by-file must not be satisfied by --by-filex.
        if ! printf '%s\n' "$plain" | grep -qE -- "(^|[^a-z0-9-])$o([^a-z0-9-]|\$)"; then
            echo "manpage.sh: $cmd option $o (from --help) is not documented in $(basename "$man")" >&2
            fail=$((fail + 1))
        else
            pass=$((pass + 1))
        fi
    done
    sec=$(printf '%s' "$cmd" | tr a-z A-Z)" OPTIONS"
    documented=$(section_opts "$sec")
    if [ -z "$documented" ]; then
        echo "manpage.sh: $(basename "$man") has no '$sec' section with options" >&2
        fail=$((fail + 1))
    fi
    for o in $documented; do
        if ! printf '%s\n' "$opts" | grep -qxF -- "$o"; then
            echo "manpage.sh: $(basename "$man") documents $cmd option $o, which '$cmd --help' does not list" >&2
            fail=$((fail + 1))
        else
            pass=$((pass + 1))
        fi
    done
    echo "manpage.sh: $cmd: $n long options in --help, $(printf '%s\n' "$documented" | grep -c .) in the man page"
done

echo "manpage.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
