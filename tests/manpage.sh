#!/usr/bin/env bash
# Checks that probescan.1 and the built-in help agree, per command: for each
# of count, locate, merge and summary,
#   - every option (short and long) in the "Options:" list of
#     `probescan CMD --help` is a tagged paragraph (.TP) of the man page's
#     "CMD OPTIONS" section;
#   - every option tagged in that section is one the command's help lists
#     (no stale or invented options).
# Each option checked either way is one check; a failure names the command,
# the option and where it is missing. Ends with "manpage.sh: N passed, N failed".
# Usage: tests/manpage.sh [PROBESCAN_BINARY [MANPAGE]]
set -euo pipefail

bin=${1:-./probescan}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
man=${2:-$here/../probescan.1}

[ -x "$bin" ] || { echo "manpage.sh: $bin is not an executable (build it with make)" >&2; exit 2; }
[ -r "$man" ] || { echo "manpage.sh: cannot read $man" >&2; exit 2; }
page=$(basename "$man")

# Options (-x, --word-word) in a text, one per line, sorted, unique.
opts_in() { grep -oE -- '(^|[^a-zA-Z0-9-])--?[a-zA-Z0-9][a-z0-9]*(-[a-z0-9]+)*' | sed 's/^[^-]*//' | sort -u; }

# The options a help text lists: the first column of the lines of its
# "Options:" block (up to the first blank line), e.g. "  -p, --probes FILE  ...".
help_opts() {
    awk '/^Options:/ { on = 1; next }
         on && /^[ \t]*$/ { on = 0 }
         on && /^ +-/ { sub(/^ +/, ""); sub(/  .*/, ""); print }' | opts_in
}

# The man page as plain text: roff hyphens and font changes removed.
plain=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(mu/x/g' "$man")

# The options of the tagged paragraphs (.TP) of one section of the page.
section_opts() {
    printf '%s\n' "$plain" | awk -v want="$1" '
        /^\.SH/ { sec = $0; sub(/^\.SH[ \t]+/, "", sec); gsub(/"/, "", sec); tp = 0; next }
        /^\.TP/ { tp = 1; next }
        tp { if (sec == want) print; tp = 0 }' | opts_in
}

pass=0 fail=0
for cmd in count locate merge summary; do
    sec=$(printf '%s' "$cmd" | tr a-z A-Z)" OPTIONS"
    help=$("$bin" "$cmd" --help) || { echo "manpage.sh: '$bin $cmd --help' failed" >&2; exit 1; }
    listed=$(printf '%s\n' "$help" | help_opts)
    documented=$(section_opts "$sec")
    if [ -z "$listed" ]; then
        echo "manpage.sh: '$cmd --help' lists no options under 'Options:'" >&2
        fail=$((fail + 1))
    fi
    if [ -z "$documented" ]; then
        echo "manpage.sh: $page has no '$sec' section with options" >&2
        fail=$((fail + 1))
    fi
    for o in $listed; do
        if grep -qxF -- "$o" <<<"$documented"; then
            pass=$((pass + 1))
        else
            echo "manpage.sh: $cmd option $o (in '$cmd --help') is not in $page under $sec" >&2
            fail=$((fail + 1))
        fi
    done
    for o in $documented; do
        if grep -qxF -- "$o" <<<"$listed"; then
            pass=$((pass + 1))
        else
            echo "manpage.sh: $page documents $cmd option $o under $sec, which '$cmd --help' does not list" >&2
            fail=$((fail + 1))
        fi
    done
    echo "manpage.sh: $cmd: $(printf '%s\n' "$listed" | grep -c .) options in --help, $(printf '%s\n' "$documented" | grep -c .) in the man page"
done

echo "manpage.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
