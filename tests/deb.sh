#!/usr/bin/env bash
# Builds the Debian package from the tracked files (dpkg-buildpackage -us -uc
# -b, the CPU build), checks it with lintian (no errors), installs it, and
# runs the installed probescan: --version and the demo count. Needs root (to
# install) and dpkg-dev, debhelper and lintian; says what was skipped and why
# otherwise. Usage: tests/deb.sh
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
for tool in dpkg-buildpackage dh lintian; do
    if ! command -v "$tool" >/dev/null; then
        echo "deb.sh: 4 skipped (tool: $tool not installed: apt-get install dpkg-dev debhelper lintian)"
        exit 0
    fi
done
if [ "$(id -u)" != 0 ]; then
    echo "deb.sh: 4 skipped (root: installing the package needs root)"
    exit 0
fi
version=$(sed -n '1s/^probescan (\([^)]*\)).*/\1/p' "$here/debian/changelog")
work=$(mktemp -d "${TMPDIR:-/tmp}/probescan-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/probescan-$version
mkdir -p "$src"
(cd "$here" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$src")
if (cd "$src" && dpkg-buildpackage -us -uc -b) > "$work/build.log" 2>&1; then
    ok "dpkg-buildpackage -us -uc -b: probescan_${version}_*.deb"
else
    bad "dpkg-buildpackage failed:"; tail -20 "$work/build.log"
    echo "deb.sh: $passed passed, $failed failed"; exit 1
fi
deb=$(ls "$work"/probescan_"$version"_*.deb)
if lintian --fail-on error "$work"/probescan_"$version"_*.changes > "$work/lintian.log" 2>&1; then
    ok "lintian: no errors ($(grep -c '^[EW]:' "$work/lintian.log") errors or warnings listed)"
else
    bad "lintian:"; cat "$work/lintian.log"
fi
if dpkg -i "$deb" > "$work/install.log" 2>&1 && [ "$(/usr/bin/probescan --version)" = "$version" ]; then
    ok "installed: /usr/bin/probescan --version is $version"
else
    bad "installing $deb:"; tail -5 "$work/install.log"
fi
if /usr/bin/probescan count -q -p "$here/fasta/ecoli_probes.fa" -o "$work/demo.tsv" "$here/fasta/ecoli_K12_MG1655.fa.gz" &&
    [ "$(awk -F '\t' 'NR > 1 && $3 > 0' "$work/demo.tsv" | wc -l)" -eq 480 ] &&
    [ -r /usr/share/man/man1/probescan.1.gz ] && [ -r /usr/share/bash-completion/completions/probescan ]; then
    ok "the installed probescan counts the demo (480 of 500 probes found); man page and completion installed"
else
    bad "the installed probescan on the demo"
fi
echo "deb.sh: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
