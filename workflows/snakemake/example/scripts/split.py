#!/usr/bin/env python3
"""Scatter step of the example pipelines: run by Snakemake's `script:`
directive, or from the command line (the Nextflow example):

    split.py --kind fasta|fastq [--parts N] --sample NAME INPUT OUTDIR

Splits one input into chunk files laid out as

    <outdir>/<chunk>/<sample>.fa    (FASTA: one chunk per record)
    <outdir>/<chunk>/<sample>.fq    (FASTQ: params.parts chunks)

Every chunk file has the sample's own name, so `probescan count --by-file`
names its column after the sample, and `probescan merge` sums the chunks'
columns into the sample's column: the same numbers as one run over the whole
file, since matches never span records. FASTQ records are dealt out round
robin (four-line records), which keeps memory bounded; the order of reads
does not change the counts. Chunk names start with a zero-padded ordinal so
that they sort in input order.
"""
import gzip
import os
import re
import sys


def opener(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":  # gzip and BGZF alike
        return gzip.open(path, "rt")
    return open(path, "rt")


def safe(name):
    """A record name usable as a directory name."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name) or "record"


def split_fasta(src, outdir, sample):
    out = None
    n = 0
    try:
        with opener(src) as f:
            for line in f:
                if line.startswith(">"):
                    if out:
                        out.close()
                    words = line[1:].split()
                    chunk = os.path.join(outdir, f"{n:04d}_{safe(words[0] if words else '')}")
                    os.makedirs(chunk)
                    out = open(os.path.join(chunk, f"{sample}.fa"), "w")
                    n += 1
                elif out is None:
                    if line.strip():
                        raise ValueError(f"{src}: sequence before the first '>' header")
                    continue
                out.write(line)
    finally:
        if out:
            out.close()
    if n == 0:
        raise ValueError(f"{src}: no FASTA records")
    return n


def split_fastq(src, outdir, sample, parts):
    outs = []
    for i in range(parts):
        chunk = os.path.join(outdir, f"{i:04d}_part{i + 1}")
        os.makedirs(chunk)
        outs.append(open(os.path.join(chunk, f"{sample}.fq"), "w"))
    n = 0
    try:
        with opener(src) as f:
            while True:
                rec = [f.readline() for _ in range(4)]
                if not rec[0]:
                    break
                if not rec[0].startswith("@") or not rec[2].startswith("+") or not rec[3]:
                    raise ValueError(f"{src}: record {n + 1} is not a four-line FASTQ record")
                outs[n % parts].writelines(rec)
                n += 1
    finally:
        for o in outs:
            o.close()
    if n == 0:
        raise ValueError(f"{src}: no FASTQ records")
    # Fewer reads than parts: drop the empty chunks, since an input without
    # records is an error for probescan.
    for i in range(n, parts):
        chunk = os.path.dirname(outs[i].name)
        os.remove(outs[i].name)
        os.rmdir(chunk)
    return n


def run(src, outdir, sample, kind, parts):
    """Splits src into outdir; returns a line for the log."""
    os.makedirs(outdir)
    if kind == "fasta":
        n = split_fasta(src, outdir, sample)
        return f"split {src}: {n} records into {n} chunks\n"
    n = split_fastq(src, outdir, sample, parts)
    return f"split {src}: {n} reads into {min(n, parts)} chunks\n"


if "snakemake" in globals():
    sm = snakemake  # noqa: F821 - the object Snakemake's script: directive provides
    line = run(sm.input[0], sm.output[0], sm.wildcards.sample, sm.params.kind, int(sm.params.parts))
    with open(sm.log[0], "w") as log:
        log.write(line)
elif __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Split a FASTA file per record or a FASTQ file into parts.")
    ap.add_argument("--kind", choices=["fasta", "fastq"], required=True)
    ap.add_argument("--parts", type=int, default=3, help="FASTQ: number of chunks (default 3)")
    ap.add_argument("--sample", required=True, help="sample name: every chunk file is <sample>.fa or .fq")
    ap.add_argument("input")
    ap.add_argument("outdir")
    a = ap.parse_args()
    if a.parts < 1:
        ap.error("--parts must be at least 1")
    sys.stdout.write(run(a.input, a.outdir, a.sample, a.kind, a.parts))
