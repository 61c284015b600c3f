#!/usr/bin/env python3
"""Makes probes.fa for the example pipeline: 21-mers sampled from real genomes
plus random 21-mers that occur in none of the example inputs.

    python3 make_probes.py DATA_DIR > probes.fa

Deterministic (fixed seed), standard library only. The shipped probes.fa was
made with the default arguments from the repository's ../shared/data:
70 probes from E. coli K-12 MG1655 and 70 from S. cerevisiae S288C (forward
strand, named <genome>_<record>_<1-based start>), 20 from each FASTQ sample
(named <sample>_<read number>_<1-based start>, so that the read columns of the
example's matrix are not all zero), all windows of A/C/G/T only, and 20 absent
ones (absent_<n>), checked on both strands of both genomes and both samples.
"""
import argparse
import gzip
import os
import random
import sys

K = 21
COMP = str.maketrans("ACGT", "TGCA")


def read_fasta(path):
    """Returns [(name, sequence)], name = first word of the header."""
    records, name, parts = [], None, []
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.startswith(">"):
                if name is not None:
                    records.append((name, "".join(parts).upper()))
                name, parts = line[1:].split()[0], []
            else:
                parts.append(line.strip())
    if name is not None:
        records.append((name, "".join(parts).upper()))
    return records


def read_fastq_seqs(path):
    with gzip.open(path, "rt") as f:
        for i, line in enumerate(f):
            if i % 4 == 1:
                yield line.strip().upper()


def sample(records, label, n, rng):
    """n distinct windows of A/C/G/T only, uniform over the genome's
    positions, returned in genome order."""
    total = sum(len(s) for _, s in records)
    picked = set()
    while len(picked) < n:
        pos = rng.randrange(total)
        for rec, (name, seq) in enumerate(records):
            if pos < len(seq):
                break
            pos -= len(seq)
        if set(seq[pos:pos + K]) <= set("ACGT") and pos + K <= len(seq):
            picked.add((rec, pos))
    return [(f"{label}_{records[r][0]}_{p + 1}", records[r][1][p:p + K]) for r, p in sorted(picked)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", help="directory with the example's real data")
    ap.add_argument("--seed", type=int, default=20240521)
    ap.add_argument("--per-genome", type=int, default=70)
    ap.add_argument("--per-sample", type=int, default=20)
    ap.add_argument("--absent", type=int, default=20)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    ecoli = read_fasta(os.path.join(a.data, "ecoli_K12_MG1655.fa.gz"))
    yeast = read_fasta(os.path.join(a.data, "yeast_S288C_R64-1-1.bgzf.fa.gz"))
    illumina = list(read_fastq_seqs(os.path.join(a.data, "illumina_hiseqX_10k.fq.gz")))
    ont = list(read_fastq_seqs(os.path.join(a.data, "ont_cDNA_5k.fq.gz")))
    probes = sample(ecoli, "ecoli", a.per_genome, rng) + sample(yeast, "yeast", a.per_genome, rng)
    # Reads as numbered records: the same sampler, names <sample>_<read>_<start>.
    for label, reads in (("illumina", illumina), ("ont", ont)):
        probes += sample([(str(i + 1), s) for i, s in enumerate(reads)], label, a.per_sample, rng)

    # Absent probes: random candidates, then every window of every input is
    # looked up in the (small) candidate set, on both strands.
    cand = set()
    while len(cand) < a.absent * 4:
        cand.add("".join(rng.choice("ACGT") for _ in range(K)))
    both = cand | {c.translate(COMP)[::-1] for c in cand}
    seen = set()
    seqs = [s for _, s in ecoli + yeast] + illumina + ont
    for s in seqs:
        for i in range(len(s) - K + 1):
            w = s[i:i + K]
            if w in both:
                seen.add(w)
    absent = [c for c in sorted(cand) if c not in seen and c.translate(COMP)[::-1] not in seen]
    if len(absent) < a.absent:
        sys.exit("make_probes.py: too few absent candidates; raise the candidate count")
    absent = rng.sample(absent, a.absent)
    probes += [(f"absent_{i + 1}", s) for i, s in enumerate(absent)]

    for name, seq in probes:
        sys.stdout.write(f">{name}\n{seq}\n")


if __name__ == "__main__":
    main()
