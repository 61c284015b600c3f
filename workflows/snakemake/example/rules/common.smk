# Functions of the example pipeline (Snakefile): paths of the data and of
# the chunks, kept apart from the rules as Snakemake's linter asks.
import os


def from_dir(base, path):
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(base, path))


def data_file(sample):
    return os.path.join(DATA, READS.get(sample) or GENOMES[sample])


def linked_input(sample):
    return f"inputs/{sample}.{FORMAT[sample]}.gz"


def chunk_tables(w):
    """The count tables of all chunks of a sample, known once split ran."""
    outdir = checkpoints.split.get(sample=w.sample).output[0]
    pattern = os.path.join(outdir, "{chunk,[^/]+}", f"{w.sample}.{FORMAT[w.sample]}")
    chunks = sorted(glob_wildcards(pattern).chunk)
    return [f"counts/{w.sample}/{c}.tsv" for c in chunks]
