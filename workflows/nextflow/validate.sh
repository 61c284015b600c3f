#!/usr/bin/env bash
# Validates every nf-core module's meta.yml and environment.yml here against
# the nf-core JSON schemas (SPECS, default ../shared/specs beside the
# repository), with python3's jsonschema and yaml. Without the schemas, or
# without those modules, it says what was skipped and why.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
specs=${SPECS:-$here/../../../shared/specs}
files=("$here"/modules/*/*/meta.yml "$here"/modules/*/*/environment.yml)
if [ ! -r "$specs/nf-core-modules-meta-schema.json" ] || [ ! -r "$specs/nf-core-modules-environment-schema.json" ]; then
    echo "validate.sh: ${#files[@]} skipped (data: no nf-core schemas in $specs: set SPECS)"
    exit 0
fi
if ! python3 -c 'import jsonschema, yaml' 2>/dev/null; then
    echo "validate.sh: ${#files[@]} skipped (tool: python3-jsonschema and python3-yaml are not installed)"
    exit 0
fi
python3 - "$specs" "${files[@]}" <<'PY'
import json, sys
import jsonschema, yaml
specs, files = sys.argv[1], sys.argv[2:]
schema = {k: json.load(open(f"{specs}/nf-core-modules-{k}-schema.json")) for k in ("meta", "environment")}
passed = failed = 0
for f in files:
    kind = "meta" if f.endswith("meta.yml") else "environment"
    try:
        jsonschema.validate(yaml.safe_load(open(f)), schema[kind])
        passed += 1
        print(f"ok: {f}")
    except (jsonschema.ValidationError, yaml.YAMLError) as e:
        failed += 1
        where = "/".join(str(p) for p in getattr(e, "path", []))
        print(f"FAIL: {f}: {where}: {getattr(e, 'message', e)}")
print(f"validate.sh: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
