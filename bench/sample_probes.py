#!/usr/bin/env python3
"""Sample N probes of length K from a FASTA genome (plain or gzip) as FASTA.

Windows with letters other than ACGT are skipped; the sample is uniform over
the genome's valid windows and fixed by --seed. With --distinct no sequence
is drawn twice (N must stay well under the genome's distinct windows).
usage: sample_probes.py GENOME N K [--seed S] [--protein] [--distinct]
"""
import gzip
import random
import sys


def read_records(path):
    opener = gzip.open if path.endswith(('.gz', '.bgz')) else open
    seq = []
    with opener(path, 'rt') as f:
        for line in f:
            if line.startswith('>'):
                if seq:
                    yield ''.join(seq)
                seq = []
            else:
                seq.append(line.strip().upper())
    if seq:
        yield ''.join(seq)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    seed = 1
    if '--seed' in sys.argv:
        seed = int(sys.argv[sys.argv.index('--seed') + 1])
        args.remove(str(seed))
    protein = '--protein' in sys.argv
    distinct = '--distinct' in sys.argv
    path, n, k = args[0], int(args[1]), int(args[2])
    recs = [r for r in read_records(path) if len(r) >= k]
    rng = random.Random(seed)
    if distinct and not protein:
        # The records joined by a letter no window may hold: a position
        # drawn uniformly is a window of one record or skipped.
        g = '#'.join(recs)
        seen, out = set(), []
        while len(out) < n:
            p = rng.randrange(len(g) - k + 1)
            w = g[p:p + k]
            if w in seen or w.strip('ACGT'):
                continue
            seen.add(w)
            out.append(w)
        sys.stdout.writelines(f'>p{i + 1}\n{w}\n' for i, w in enumerate(out))
        return
    weights = [len(r) - k + 1 for r in recs]
    ok = set('ACDEFGHIKLMNPQRSTVWYBZXUOJ*') if protein else set('ACGT')
    out, tries = [], 0
    while len(out) < n and tries < 100 * n:
        tries += 1
        r = rng.choices(recs, weights)[0]
        p = rng.randrange(len(r) - k + 1)
        w = r[p:p + k]
        if set(w) <= ok:
            out.append(w)
    for i, w in enumerate(out):
        print(f'>p{i + 1}\n{w}')


if __name__ == '__main__':
    main()
