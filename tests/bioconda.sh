#!/usr/bin/env bash
# Runs the Bioconda recipe's build script and test commands as conda-build
# would, without conda: build.sh from a copy of the tracked files into a
# temporary PREFIX, then each `test: commands:` line of meta.yaml (Jinja
# variables filled in) in a directory holding the `source_files`.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
recipe=$here/packaging/bioconda
if ! python3 -c 'import yaml' 2>/dev/null; then
    echo "bioconda.sh: 2 skipped (tool: python3-yaml is not installed)"
    exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/probescan-conda.XXXXXX")
trap 'rm -rf "$work"' EXIT
export PREFIX=$work/prefix SRC_DIR=$work/src CPU_COUNT=${CPU_COUNT:-2}
mkdir -p "$PREFIX" "$SRC_DIR" "$work/test"
(cd "$here" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$SRC_DIR")
passed=0 failed=0
if (cd "$SRC_DIR" && bash "$recipe/build.sh") > "$work/build.log" 2>&1 && [ -x "$PREFIX/bin/probescan" ]; then
    passed=$((passed + 1)); echo "ok: build.sh installed $PREFIX/bin/probescan"
else
    failed=$((failed + 1)); echo "FAIL: build.sh:"; tail -20 "$work/build.log"
    echo "bioconda.sh: $passed passed, $failed failed"; exit 1
fi
# The recipe's test section, Jinja filled in for the two variables it sets.
python3 - "$recipe/meta.yaml" "$work/test" "$SRC_DIR" > "$work/commands.sh" <<'PY'
import os, re, shutil, sys, yaml
text = open(sys.argv[1]).read()
env = dict(re.findall(r'{%\s*set\s+(\w+)\s*=\s*"([^"]*)"\s*%}', text))
text = re.sub(r'{%.*?%}', '', text)
text = re.sub(r'{{\s*(\w+)\s*}}', lambda m: env.get(m.group(1), m.group(0)), text)
text = re.sub(r'{{.*?}}', '"jinja"', text)
meta = yaml.safe_load(text)
for f in meta["test"].get("source_files", []):
    os.makedirs(os.path.join(sys.argv[2], os.path.dirname(f)), exist_ok=True)
    shutil.copy(os.path.join(sys.argv[3], f), os.path.join(sys.argv[2], f))
for c in meta["test"]["commands"]:
    print(c)
PY
n=0 bad=0
while IFS= read -r cmd; do
    n=$((n + 1))
    if (cd "$work/test" && PATH="$PREFIX/bin:$PATH" bash -c "set -eo pipefail; $cmd") > "$work/cmd.log" 2>&1; then :; else
        bad=$((bad + 1)); echo "FAIL: recipe test: $cmd"; tail -3 "$work/cmd.log"
    fi
done < "$work/commands.sh"
if [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]; then passed=$((passed + 1)); echo "ok: the recipe's $n test commands pass"; else failed=$((failed + 1)); fi
echo "bioconda.sh: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
