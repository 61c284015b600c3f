"""Snakemake wrapper for `probescan count`.

Inputs:  probes (the probe file) and reads (one or more FASTA/FASTQ files,
         plain, gzip or BGZF); unnamed inputs other than the probes count as reads.
Outputs: the count table (the first output, or the one named `table`) and,
         optionally, `stats`: run statistics as JSON (--stats).
Params:  extra: further `probescan count` options, e.g. "--by-file".
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
    raise ValueError("probescan wrapper: name the probe file input 'probes'")
reads = snakemake.input.get("reads")
if not reads:
    reads = [f for f in snakemake.input if f != probes]
if not reads:
    raise ValueError("probescan wrapper: no sequence inputs (name them 'reads')")

table = snakemake.output.get("table") or snakemake.output[0]
stats = snakemake.output.get("stats")
stats_opt = "--stats " + shlex.quote(stats) if stats else ""

shell(
    "probescan count {extra} {stats_opt} -t {snakemake.threads} -p {probes:q} -o {table:q} {reads:q} {log}"
)
