# The parts of the scatter (Snakefile), kept apart from the rules as
# Snakemake's linter asks.
import os
import re


def input_parts(inputs):
    """The parts a run is split into, in gather order: name -> input file.

    Today a part is an input file. This is the one place a part is made:
    parts of one file (shards) would be added here, each with its options
    in part_options."""
    parts = {}
    for i, path in enumerate(inputs):
        base = re.sub(r"[^A-Za-z0-9._-]", "_", os.path.basename(path))
        parts[f"{i:04d}_{base}"] = path
    return parts


def part_options(part):
    """Options of a part's count and locate job beyond the run's own: none
    while every part is a whole input file."""
    return ""
