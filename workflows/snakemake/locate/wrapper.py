"""Snakemake wrapper for `probescan locate`.

Inputs:  probes (the probe file) and reads (one or more sequence files);
         unnamed inputs other than the probes count as reads.
Outputs: the sites (the first output, or the one named `sites`): BED6 rows
         unless params.extra names another --format; a name ending in .gz or
         .bgz is written as BGZF. Optionally `stats`: run statistics as JSON.
Params:  extra: further `probescan locate` options, e.g. "-m 2 --pam NGG".
Threads: passed on as -t.
"""

__author__ = "probescan developers"
__copyright__ = "Copyright 2026, the probescan authors"
__license__ = "MIT"

import shlex

from snakemake.shell import shell

extra = snakemake.params.get("extra", "")
log = snakemake.log_fmt_shell(stdout=False, stderr=True)

probes = snakemake.input.get("probes")
if not probes:
    raise ValueError("probescan locate wrapper: name the probe file input 'probes'")
reads = snakemake.input.get("reads")
if not reads:
    reads = [f for f in snakemake.input if f != probes]
if not reads:
    raise ValueError("probescan locate wrapper: no sequence inputs (name them 'reads')")

sites = snakemake.output.get("sites") or snakemake.output[0]
stats = snakemake.output.get("stats")
stats_opt = "--stats " + shlex.quote(stats) if stats else ""

shell(
    "probescan locate {extra} {stats_opt} -t {snakemake.threads} -p {probes:q} -o {sites:q} {reads:q} {log}"
)
