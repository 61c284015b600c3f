"""Snakemake wrapper for `probescan merge`.

Inputs:  the tables to merge (made by `probescan count` with one probe file
         and the same options), in merge order; optionally `probes`, the
         probe file (checks the tables' rows, orders split records' rows).
Outputs: the merged table (the first output, or the one named `table`).
Params:  extra: further `probescan merge` options.
"""

__author__ = "probescan developers"
__copyright__ = "Copyright 2026, the probescan authors"
__license__ = "MIT"

import shlex

from snakemake.shell import shell

extra = snakemake.params.get("extra", "")
log = snakemake.log_fmt_shell(stdout=False, stderr=True)

probes = snakemake.input.get("probes")
tables = snakemake.input.get("tables") or [f for f in snakemake.input if f != probes]
if not tables:
    raise ValueError("probescan merge wrapper: no tables to merge")
probes_opt = "-p " + shlex.quote(probes) if probes else ""
table = snakemake.output.get("table") or snakemake.output[0]

shell("probescan merge {extra} {probes_opt} -o {table:q} {tables:q} {log}")
