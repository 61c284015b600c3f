#!/usr/bin/env bash
# guides.sh - CRISPR guides against Cas-OFFinder 2.4.1, the off-target
# search CRISPR users run: its input files read by `-p`, its rows written by
# `--format cas-offinder`, and the same searches written natively (--pam,
# --pam5, a limit per probe in a third column), on a real genome folder
# (E. coli and yeast chromosome I, two FASTA files, and the same as one
# 2bit file for the SpCas9 case; E. coli from fasta/ where PS_DATA lacks
# it, and a random chromosome of seeded bases where it lacks yeast), into
# which runs of N (and n) are put, inside and beside many sampled guides'
# sites: Cas-OFFinder reads such a letter as N (a mismatch against a
# guide's base, a match under the PAM's N), and its rows holding one must
# be probescan's too. Cases:
#
#   SpCas9  NNNNNNNNNNNNNNNNNNNNNGG, 40 guides, limits 0 to 6, with ids
#   NRG     NNNNNNNNNNNNNNNNNNNNNRG (an IUPAC PAM), limit 5, no ids
#   Cas12a  TTTVNNNNNNNNNNNNNNNNNNNNNNN (5' PAM), limit 5
#   SaCas9  NNNNNNNNNNNNNNNNNNNNNNNNNNGRRT (a PAM with N inside), limit 5
#   no PAM  20 Ns, 20 guides, limit 3
#
# For each: probescan's rows from the Cas-OFFinder file equal Cas-OFFinder's
# as a set (its row order depends on its devices), but for the record
# column, where probescan writes the record's name (the header's first word)
# and Cas-OFFinder the whole header line; `count` of the same file gives
# each guide as many sites as the rows hold; and for the PAM cases, the same
# guides as `name<TAB>spacer<TAB>limit` lines with --pam/--pam5 give the
# same rows. Guides are sampled from PAM sites on both strands with a few
# bases changed (seeded; PS_SEED repeats a run).
#
# Bulges, against Cas-OFFinder 3.0.0 (beta; built from the main branch's
# tarball beside 2.4.1's), on the genome without N (probescan's bulge sites
# hold no N): SpCas9 with DNA and RNA bulges of 1 (30 guides,
# ids, limits 0 to 4), the same with a DNA bulge of 2, and Cas12a (5' PAM)
# with bulges of 1. Its '+' rows are compared whole; its '-' rows by site
# (id, type, record, location, strand, mismatches, size), since on '-' it
# writes crRNA and DNA strings that do not spell the genome (and, for a 5'
# PAM, the location of its padded window, moved here to the site's start).
# It reads a window of the pattern's length plus the DNA bulge size, so it
# does not search sites whose window would leave the record; those of
# probescan's rows are set aside before comparing. It keys its variants by
# their text across guides, so where two guides share one (a duplicate
# guide, or a base deleted from each leaving one string) it writes that
# variant's rows once, under the first guide's id but with both guides'
# bulge positions: such guides are set aside on both sides. For the first case also:
# locate's native rows (each distinct site once, at its fewest mismatches)
# and count's sites per guide against the sites of its rows, and the same
# guides with --pam NGG --dna-bulge 1 --rna-bulge 1 giving the same rows.
#
# Cas-OFFinder is built from ../shared/peers/cas-offinder-2.4.1.tar.gz (or
# PS_PEERS) and run on the CPU through pocl (Debian: pocl-opencl-icd
# ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers cmake); the cases
# are skipped, saying why, where it cannot be built or run.
#
#   bash tests/guides.sh ./probescan
#
# Ends with "guides.sh: N passed, N failed, N skipped".
set -u
export LC_ALL=C
bin=${1:-./probescan}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
[ -x "$bin" ] || { echo "guides.sh: $bin is not an executable (build it with make)" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DATA=${PS_DATA:-$here/../../shared/data}
case $DATA in /*) ;; *) DATA=$PWD/$DATA ;; esac
PEERS=${PS_PEERS:-$DATA/../peers}
work=$(mktemp -d "${TMPDIR:-/tmp}/probescan-guides.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2

passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; failed=$((failed + 1)); }
finish() {
    echo "guides.sh: $passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
    exit
}
CASES=5 CHECKS_PER_CASE=3 BULGE_CHECKS=9
skip_all() {
    skipped=$((CASES * CHECKS_PER_CASE + 2 + BULGE_CHECKS))
    echo "guides.sh: $skipped skipped ($1: $2)"
    finish
}

# The genome: E. coli from PS_DATA, else the copy in fasta/; yeast's
# chromosome I from PS_DATA, else a second file of seeded random bases of
# its length (the cases compare two programs over one folder, whatever it
# holds).
ecoli=$DATA/ecoli_K12_MG1655.fa.gz
[ -r "$ecoli" ] || ecoli=$here/../fasta/ecoli_K12_MG1655.fa.gz
yeast=$DATA/yeast_S288C_R64-1-1.bgzf.fa.gz
[ -r "$ecoli" ] || skip_all data "no ecoli_K12_MG1655.fa.gz in PS_DATA=$DATA nor fasta/"
tarball=$PEERS/cas-offinder-2.4.1.tar.gz
[ -r "$tarball" ] || skip_all data "no cas-offinder-2.4.1.tar.gz (Cas-OFFinder 2.4.1's source) in PS_PEERS=$PEERS"
command -v cmake >/dev/null && command -v python3 >/dev/null ||
    skip_all tool "cmake or python3 missing (Debian: cmake python3)"
[ -r /usr/include/CL/cl.h ] || skip_all tool "OpenCL headers missing (Debian: ocl-icd-opencl-dev opencl-c-headers)"

# Cas-OFFinder, built once here (about 20 s on two cores).
tar xzf "$tarball" && cd cas-offinder-2.4.1 &&
    cmake -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCMAKE_BUILD_TYPE=Release . >../cmake.log 2>&1 &&
    make -j2 >>../cmake.log 2>&1
built=$?
cd "$work" || exit 2
[ "$built" -eq 0 ] && [ -x cas-offinder-2.4.1/cas-offinder ] || {
    tail -5 cmake.log
    skip_all tool "Cas-OFFinder 2.4.1 did not build"
}
cof=$work/cas-offinder-2.4.1/cas-offinder

mkdir genome
zcat "$ecoli" >genome/ecoli.fa
if [ -r "$yeast" ]; then
    zcat "$yeast" | awk '/^>/ { n++ } n == 1' >genome/yeast_chrI.fa
else
    echo "guides.sh: no $(basename "$yeast") in PS_DATA=$DATA: a random second chromosome instead of yeast's chrI"
    awk 'BEGIN { srand(11); print ">random_chrI"; for (i = 0; i < 230218; i++) { printf "%s", substr("ACGT", 1 + int(rand() * 4) % 4, 1); if (i % 80 == 79) print "" } print "" }' >genome/yeast_chrI.fa
fi
# The bulge cases read the genome as it is; the others with N put in (below).
cp -r genome genome_acgt

seed=${PS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "guides.sh: seed $seed (PS_SEED=$seed repeats this run)"

# The guide sampler both case writers below use.
cat >gsample.py <<'EOF'
import os
COMP = {'A': 'T', 'C': 'G', 'G': 'C', 'T': 'A'}
def rc(s): return ''.join(COMP[c] for c in reversed(s))
def genome(folder):
    """The records of the folder's FASTA files, in name order."""
    seq = []
    for fn in sorted(os.listdir(folder)):
        if not fn.endswith('.fa'): continue
        cur = []
        for line in open(os.path.join(folder, fn)):
            if line.startswith('>'):
                if cur: seq.append(''.join(cur)); cur = []
            else:
                cur.append(line.strip().upper())
        if cur: seq.append(''.join(cur))
    return seq
HITS = []  # (record index, start, length) of each guide sampled
def sample(rnd, seq, n, L, ok, five, P):
    """n guides at sites of L bases that ok takes, on either strand, a few
    bases changed, N over the PAM's P positions (5' where five)."""
    out = []
    while len(out) < n:
        r = rnd.randrange(len(seq))
        s = seq[r]
        i = rnd.randrange(len(s) - L)
        site = s[i:i + L]
        if any(c not in 'ACGT' for c in site): continue
        if rnd.random() < 0.5: site = rc(site)
        if not ok(site): continue
        g = list(site)
        for _ in range(rnd.randrange(3)):
            j = rnd.randrange(L)
            g[j] = rnd.choice('ACGT')
        out.append('N' * P + ''.join(g[P:]) if five else ''.join(g[:L - P]) + 'N' * P)
        HITS.append((r, i, L))
    return out
def add_n(rnd, folder):
    """Letters that are no base, as genomes hold them, put into the
    folder's FASTA files: N (and n) runs of 1 to 40 here and there, and at
    the sites sampled, inside a guide's site or at one end, so that many
    sites hold one (Cas-OFFinder reads each as N: a mismatch against a
    guide's base, a match under the PAM's N)."""
    files = []
    for fn in sorted(os.listdir(folder)):
        if not fn.endswith('.fa'): continue
        recs, name, cur = [], None, []
        for line in open(os.path.join(folder, fn)):
            if line.startswith('>'):
                if name is not None: recs.append([name, list(''.join(cur))])
                name, cur = line, []
            else:
                cur.append(line.strip().upper())
        if name is not None: recs.append([name, list(''.join(cur))])
        files.append((fn, recs))
    flat = [r for _, recs in files for r in recs]
    for r, i, L in HITS:
        s = flat[r][1]
        k = rnd.randrange(4)
        if k == 0: continue
        j = i + rnd.randrange(L) if k == 1 else (i + L - 3 if k == 2 else i + rnd.choice([-1, L]))
        for t in range(rnd.choice([1, 1, 2, 5])):
            if 0 <= j + t < len(s): s[j + t] = rnd.choice('NNNn')
    for rec in flat:
        s = rec[1]
        for _ in range(len(s) // 3000):
            j, m = rnd.randrange(len(s)), rnd.choice([1, 1, 2, 3, 7, 40])
            for t in range(m):
                if j + t < len(s): s[j + t] = 'N'
    for fn, recs in files:
        with open(os.path.join(folder, fn), 'w') as f:
            for name, s in recs:
                f.write(name)
                t = ''.join(s)
                for k in range(0, len(t), 60): f.write(t[k:k + 60] + '\n')
EOF

# Writes case files: NAME.cof (Cas-OFFinder input) and NAME.tsv (the same
# guides as name<TAB>spacer<TAB>limit, for --pam/--pam5).
python3 - "$seed" "$work/genome" <<'EOF' || { echo "FAIL: writing the cases"; exit 1; }
import random, sys
sys.path.insert(0, '.')
from gsample import genome, sample as sample_at, add_n
rnd = random.Random(int(sys.argv[1]))
folder = sys.argv[2]
seq = genome(folder)
IUPAC = {'A': 'A', 'C': 'C', 'G': 'G', 'T': 'T', 'R': 'AG', 'Y': 'CT', 'S': 'CG', 'W': 'AT', 'K': 'GT',
         'M': 'AC', 'B': 'CGT', 'D': 'AGT', 'H': 'ACT', 'V': 'ACG', 'N': 'ACGT'}
def fits(site, pat): return all(c in IUPAC[p] for c, p in zip(site, pat))
def sample(pat, n, pam, five):
    return sample_at(rnd, seq, n, len(pat), lambda site: fits(site, pat), five, len(pam or ''))
def write(name, pat, guides, limits, ids, pam, five):
    with open(name + '.cof', 'w') as f:
        f.write(folder + '\n' + pat + '\n')
        for k, g in enumerate(guides):
            f.write(g + ' ' + str(limits[k]) + (' g%d' % k if ids else '') + '\n')
    if pam:
        with open(name + '.tsv', 'w') as f:
            for k, g in enumerate(guides):
                spacer = g[len(pam):] if five else g[:len(g) - len(pam)]
                f.write(('g%d' % k if ids else g) + '\t' + spacer + '\t' + str(limits[k]) + '\n')
cases = [('spcas9', 'N' * 21 + 'GG', 40, None, True, 'NGG', False),
         ('nrg', 'N' * 21 + 'RG', 30, 5, False, 'NRG', False),
         ('cas12a', 'TTTV' + 'N' * 23, 30, 5, False, 'TTTV', True),
         ('sacas9', 'N' * 21 + 'NNGRRT', 30, 5, False, 'NNGRRT', False),
         ('nopam', 'N' * 20, 20, 3, False, None, False)]
for name, pat, n, lim, ids, pam, five in cases:
    guides = sample(pat, n, pam, five)
    limits = [rnd.randrange(7) if lim is None else lim for _ in guides]
    write(name, pat, guides, limits, ids, pam, five)
add_n(rnd, folder)
EOF

# A note beside the genome, which both pass over.
echo "two genomes" >genome/README

# Cas-OFFinder's rows with the record column cut at its first blank.
cof_rows() { awk -F'\t' 'BEGIN { OFS = "\t" } { sub(/ .*/, "", $2); print }' "$1" | sort; }

with_n=0 ran=0
for spec in spcas9:NGG:3 nrg:NRG:3 cas12a:TTTV:5 sacas9:NNGRRT:3 nopam::; do
    IFS=: read -r name pam side <<<"$spec"
    if ! "$cof" "$name.cof" C "$name.out" >"$name.coflog" 2>&1; then
        tail -3 "$name.coflog"
        skipped=$((skipped + CHECKS_PER_CASE))
        echo "guides.sh: $CHECKS_PER_CASE skipped (tool: Cas-OFFinder did not run on the CPU: no OpenCL CPU device? Debian: pocl-opencl-icd)"
        continue
    fi
    cof_rows "$name.out" >"$name.want"
    ran=$((ran + 1))
    echo "guides.sh: $name: Cas-OFFinder wrote $(wc -l <"$name.want") rows ($(awk -F'\t' '$5 == "-"' "$name.want" | wc -l) on '-', $(awk -F'\t' '$6 > 0' "$name.want" | wc -l) with mismatches, $(awk -F'\t' '$4 ~ /[Nn]/' "$name.want" | wc -l) holding N)"
    with_n=$((with_n + $(awk -F'\t' '$4 ~ /[Nn]/' "$name.want" | wc -l)))
    # 1. The Cas-OFFinder file itself, its genome folder the input.
    if "$bin" locate -q -p "$name.cof" --format cas-offinder -o "$name.got" 2>"$name.err"; then
        sort "$name.got" >"$name.got.s"
        if cmp -s "$name.want" "$name.got.s"; then
            ok
        else
            bad "$name: rows differ from Cas-OFFinder's ($(wc -l <"$name.want") vs $(wc -l <"$name.got.s")): $(diff "$name.want" "$name.got.s" | head -4 | tr '\n' ' ')"
        fi
    else
        bad "$name: locate failed: $(head -2 "$name.err")"
    fi
    # 2. count: a guide's sites, summed over its mismatch columns, are its
    # rows (a guide listed twice, as sampling may give, has a row each: by name).
    if "$bin" count -q -p "$name.cof" -o "$name.counts" 2>"$name.cerr"; then
        awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^mm[0-9]+$/) m[i] = 1; next }
                    { for (i in m) t[$1] += $i }
                    END { for (g in t) if (t[g]) print g "\t" t[g] }' "$name.counts" | sort >"$name.cnt"
        awk -F'\t' '{ n[NF == 7 ? $7 : $1]++ } END { for (g in n) print g "\t" n[g] }' "$name.want" | sort >"$name.cnt.want"
        if cmp -s "$name.cnt" "$name.cnt.want"; then ok; else bad "$name: count's sites per guide differ from the rows: $(diff "$name.cnt.want" "$name.cnt" | head -4 | tr '\n' ' ')"; fi
    else
        bad "$name: count failed: $(head -2 "$name.cerr")"
    fi
    # 3. The same guides written natively.
    if [ -z "$pam" ]; then
        # No PAM: the guides as probes, with -m 3.
        awk '{ print $1 }' "$name.cof" | tail -n +3 >"$name.plain"
        if "$bin" locate -q -p "$name.plain" -m 3 --format cas-offinder -o "$name.nat" genome/*.fa 2>"$name.nerr"; then
            sort "$name.nat" >"$name.nat.s"
            if cmp -s "$name.want" "$name.nat.s"; then ok; else bad "$name: -m 3 rows differ from Cas-OFFinder's"; fi
        else
            bad "$name: locate -m 3 failed: $(head -2 "$name.nerr")"
        fi
        continue
    fi
    opt=--pam
    [ "$side" = 5 ] && opt=--pam5
    if "$bin" locate -q -p "$name.tsv" "$opt" "$pam" --format cas-offinder -o "$name.nat" genome/*.fa 2>"$name.nerr"; then
        sort "$name.nat" >"$name.nat.s"
        # Cas-OFFinder's query column writes the PAM's positions as its
        # pattern line gives them to the guide: N.
        if cmp -s "$name.want" "$name.nat.s"; then ok; else bad "$name: $opt $pam rows differ from Cas-OFFinder's: $(diff "$name.want" "$name.nat.s" | head -4 | tr '\n' ' ')"; fi
    else
        bad "$name: locate $opt $pam failed: $(head -2 "$name.nerr")"
    fi
done

# The genome's N runs put sites holding N into Cas-OFFinder's rows, which
# probescan must write too (Cas-OFFinder's rule for N, nsites.h).
if [ "$ran" -eq 0 ]; then
    skipped=$((skipped + 1))
    echo "guides.sh: 1 skipped (tool: Cas-OFFinder ran no case, so no row held N)"
elif [ "$with_n" -gt 0 ]; then ok; else bad "no row of Cas-OFFinder's held N: the N cases did not run"; fi

# 4. A 2bit genome (the same two sequences, N runs listed apart): the
# SpCas9 guides from a Cas-OFFinder file naming it, against Cas-OFFinder.
python3 - "$work/genome" "$work/genome.2bit" <<'PY' || bad "writing genome.2bit"
import os, struct, sys
recs = []
for fn in sorted(os.listdir(sys.argv[1])):
    name, seq = None, []
    for line in open(os.path.join(sys.argv[1], fn)):
        if line.startswith('>'):
            if name: recs.append((name, ''.join(seq)))
            name, seq = line[1:].split()[0], []
        else:
            seq.append(line.strip().upper())
    if name: recs.append((name, ''.join(seq)))
code = {'T': 0, 'C': 1, 'A': 2, 'G': 3}
index_len = sum(1 + len(n) + 4 for n, _ in recs)
off = 16 + index_len
index, body = b'', b''
for name, seq in recs:
    index += bytes([len(name)]) + name.encode() + struct.pack('<I', off + len(body))
    runs, i = [], 0
    while i < len(seq):
        if seq[i] not in code:
            j = i
            while j < len(seq) and seq[j] not in code: j += 1
            runs.append((i, j - i)); i = j
        else:
            i += 1
    rec = struct.pack('<II', len(seq), len(runs)) + b''.join(struct.pack('<I', r[0]) for r in runs)
    rec += b''.join(struct.pack('<I', r[1]) for r in runs) + struct.pack('<II', 0, 0)
    packed = bytearray()
    for k in range(0, len(seq), 4):
        v = 0
        for q in range(4):
            c = seq[k + q] if k + q < len(seq) else 'T'
            v |= code.get(c, 0) << (6 - 2 * q)
        packed.append(v)
    body += rec + bytes(packed)
open(sys.argv[2], 'wb').write(struct.pack('<IIII', 0x1A412743, 0, len(recs), 0) + index + body)
PY
{ echo "$work/genome.2bit"; tail -n +2 spcas9.cof; } >twobit.cof
if [ -s spcas9.want ] && "$cof" twobit.cof C twobit.out >twobit.coflog 2>&1; then
    cof_rows twobit.out >twobit.want
    "$bin" locate -q -p twobit.cof --format cas-offinder -o twobit.got 2>twobit.err
    sort twobit.got >twobit.got.s
    if [ -s twobit.want ] && cmp -s twobit.want twobit.got.s && cmp -s twobit.want spcas9.want; then
        ok
    else
        bad "2bit genome: rows differ from Cas-OFFinder's on it or from the FASTA run's ($(wc -l <twobit.want) / $(wc -l <twobit.got.s) / $(wc -l <spcas9.want)): $(head -2 twobit.err)"
    fi
else
    skipped=$((skipped + 1))
    echo "guides.sh: 1 skipped (tool: Cas-OFFinder did not run on the 2bit genome)"
fi

# 5. Bulges against Cas-OFFinder 3.0.0 (beta).
beta_tar=$PEERS/cas-offinder-main-0a9ac00.tar.gz
skip_bulges() {
    skipped=$((skipped + BULGE_CHECKS))
    echo "guides.sh: $BULGE_CHECKS skipped ($1: $2)"
    finish
}
[ -r "$beta_tar" ] || skip_bulges data "no $(basename "$beta_tar") (Cas-OFFinder 3.0.0's source) in PS_PEERS=$PEERS"
tar xzf "$beta_tar" && cd cas-offinder-main-0a9ac00 &&
    cmake -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCMAKE_BUILD_TYPE=Release . >../cmake3.log 2>&1 &&
    make -j2 >>../cmake3.log 2>&1
built=$?
cd "$work" || exit 2
[ "$built" -eq 0 ] && [ -x cas-offinder-main-0a9ac00/cas-offinder ] || {
    tail -5 cmake3.log
    skip_bulges tool "Cas-OFFinder 3.0.0 did not build"
}
cof3=$work/cas-offinder-main-0a9ac00/cas-offinder
python3 - "$seed" "$work/genome_acgt" <<'EOF' || { echo "FAIL: writing the bulge cases"; exit 1; }
import random, sys
sys.path.insert(0, '.')
from gsample import genome, sample as sample_at, add_n
rnd = random.Random(int(sys.argv[1]) ^ 0xb01e5)
seq = genome(sys.argv[2])
folder = sys.argv[2]
def sample(n, L, ok, five, P): return sample_at(rnd, seq, n, L, ok, five, P)
ngg = lambda s: s.endswith('GG')
tttv = lambda s: s.startswith('TTT') and s[3] in 'ACG'
cases = [('b11', 'N' * 21 + 'GG 1 1', ngg, False, 3, 30, True),
         ('b21', 'N' * 21 + 'GG 2 1', ngg, False, 3, 20, False),
         ('c12b', 'TTTV' + 'N' * 23 + ' 1 1', tttv, True, 4, 20, False)]
def variants(g, D, R, five):
    # Cas-OFFinder 3's compare strings of guide line g (cas-offinder.cpp)
    f = len(g) - len(g.lstrip('N')); l = len(g.rstrip('N')) - 1
    out = []
    for i in range(1, D + 1):
        for j in range(f, l + 2):
            out.append(g[:j] + 'N' * i + g[j:] + 'N' * (D - i) if five else 'N' * (D - i) + g[:j] + 'N' * i + g[j:])
    for i in range(1, R + 1):
        for j in range(f, l + 1 - i):
            out.append(g[:j] + g[j + i:] + 'N' * (D + i) if five else 'N' * (D + i) + g[:j] + g[j + i:])
    return out
for name, pat, ok, five, P, n, ids in cases:
    L = len(pat.split()[0])
    D, R = int(pat.split()[1]), int(pat.split()[2])
    guides = sample(n, L, ok, five, P)
    limits = [rnd.randrange(5) if ids else 3 for _ in guides]
    # Cas-OFFinder 3 keys variants by their text across guides: where two
    # guides share one (a duplicate, or one base deleted from each leaving
    # the same string), it writes that variant's rows under the first
    # guide's id, with the bulge positions of both.
    owners = {}
    for k, g in enumerate(guides):
        for v in set(variants(g, D, R, five)): owners.setdefault(v, set()).add(k)
    shared = sorted(set(k for ks in owners.values() if len(ks) > 1 for k in ks))
    shadowed = ['g%d' % k if ids else str(k) for k in shared]
    with open(name + '.skip', 'w') as f:
        f.write(''.join(x + '\n' for x in shadowed))
    with open(name + '.cof', 'w') as f:
        f.write(folder + '\n' + pat + '\n')
        for k, g in enumerate(guides):
            f.write('%s %d%s\n' % (g, limits[k], ' g%d' % k if ids else ''))
    if ids:
        with open(name + '.tsv', 'w') as f:
            for k, g in enumerate(guides):
                f.write('g%d\t%s\t%d\n' % (k, g[:L - P], limits[k]))
EOF
# Record lengths, for the windows Cas-OFFinder 3 reads.
for f in genome_acgt/*.fa; do
    awk '/^>/ { if (n) print n "\t" l; n = substr($1, 2); l = 0; next } { l += length($0) } END { print n "\t" l }' "$f"
done >reclen.tsv
# split3 FILE DNA PATLEN FIVE MINE SKIP: FILE's rows as FILE.plus (whole,
# the record cut at its first blank) and FILE.minus (by site), each sorted
# and distinct, less the guides in SKIP (above); MINE=1: probescan's, less
# the sites whose padded window leaves the record; else Cas-OFFinder's, a
# 5' PAM's '-' locations moved from its window to the site.
split3() {
    : >"$1.plus"
    : >"$1.minus"
    awk -F'\t' -v D="$2" -v P="$3" -v five="$4" -v mine="$5" -v out="$1" 'BEGIN { OFS = "\t" }
        FILENAME == ARGV[1] { skip[$1] = 1; next }
        FILENAME == ARGV[2] { len[$1] = $2; next }
        /^#/ || ($1 in skip) { next }
        { sub(/ .*/, "", $5)
          pad = $2 == "X" ? D : $2 == "DNA" ? D - $9 : D + $9
          site = $2 == "DNA" ? P + $9 : $2 == "RNA" ? P - $9 : P
          if (mine) {
              ws = ($7 == "+") == (five == 0) ? $6 - pad : $6
              if (ws < 0 || ws + site + pad > len[$5]) next
          } else if (five && $7 == "-") $6 += pad
          if ($7 == "+") print > (out ".plus")
          else print $1, $2, $5, $6, $7, $8, $9 > (out ".minus") }' "$6" reclen.tsv "$1"
    sort -u -o "$1.plus" "$1.plus"
    sort -u -o "$1.minus" "$1.minus"
}
for spec in b11:1:23:0 b21:2:23:0 c12b:1:27:1; do
    IFS=: read -r name D P five <<<"$spec"
    if ! "$cof3" "$name.cof" C "$name.out" >"$name.coflog" 2>&1; then
        tail -3 "$name.coflog"
        skipped=$((skipped + 2))
        echo "guides.sh: 2 skipped (tool: Cas-OFFinder 3.0.0 did not run on the CPU)"
        continue
    fi
    if ! "$bin" locate -q -p "$name.cof" --format cas-offinder -o "$name.got" 2>"$name.err"; then
        bad "$name: locate failed: $(head -2 "$name.err")"
        bad "$name: no rows to compare"
        continue
    fi
    split3 "$name.out" "$D" "$P" "$five" 0 "$name.skip"
    split3 "$name.got" "$D" "$P" "$five" 1 "$name.skip"
    echo "guides.sh: $name: Cas-OFFinder 3 wrote $(grep -vc '^#' "$name.out") rows ($(wc -l <"$name.out.plus") '+' and $(wc -l <"$name.out.minus") '-' distinct, $(grep -c $'\t[DR]NA\t' "$name.out") with a bulge; $(wc -l <"$name.skip") guides set aside)"
    if [ -s "$name.out.plus" ] && cmp -s "$name.out.plus" "$name.got.plus"; then ok; else bad "$name: '+' rows differ from Cas-OFFinder 3's: $(diff "$name.out.plus" "$name.got.plus" | head -4 | tr '\n' ' ')"; fi
    if [ -s "$name.out.minus" ] && cmp -s "$name.out.minus" "$name.got.minus"; then ok; else bad "$name: '-' sites differ from Cas-OFFinder 3's: $(diff "$name.out.minus" "$name.got.minus" | head -4 | tr '\n' ' ')"; fi
done
# The first case natively: each distinct site once at its fewest mismatches
# (BED), count's sites per guide, and --pam with the bulge options.
if [ -s b11.out ] && [ -s b11.got ]; then
    awk -F'\t' 'BEGIN { OFS = "\t" } /^#/ { next }
        { sub(/ .*/, "", $5); len = $2 == "DNA" ? 23 + $9 : $2 == "RNA" ? 23 - $9 : 23
          k = $5 OFS $6 OFS $6 + len OFS $1 OFS $7
          if (!(k in m) || $8 < m[k]) m[k] = $8 }
        END { for (k in m) { split(k, f, OFS); print f[1], f[2], f[3], f[4], m[k], f[5] } }' b11.got | sort >b11.sites
    if "$bin" locate -q -p b11.cof -o b11.bed 2>b11.berr; then
        sort b11.bed >b11.bed.s
        if [ -s b11.sites ] && cmp -s b11.sites b11.bed.s; then ok; else bad "b11: locate's rows are not the distinct sites at their fewest mismatches: $(diff b11.sites b11.bed.s | head -4 | tr '\n' ' ')"; fi
    else
        bad "b11: locate (BED) failed: $(head -2 b11.berr)"
    fi
    if "$bin" count -q -p b11.cof -o b11.counts 2>b11.cerr; then
        awk -F'\t' 'NR > 1 && $3 > 0 { print $1 "\t" $3 }' b11.counts | sort >b11.cnt
        cut -f4 b11.sites | sort | uniq -c | awk '{ print $2 "\t" $1 }' | sort >b11.cnt.want
        if cmp -s b11.cnt b11.cnt.want; then ok; else bad "b11: count's sites per guide differ from locate's: $(diff b11.cnt.want b11.cnt | head -4 | tr '\n' ' ')"; fi
    else
        bad "b11: count failed: $(head -2 b11.cerr)"
    fi
    if "$bin" locate -q -p b11.tsv --pam NGG --dna-bulge 1 --rna-bulge 1 --format cas-offinder -o b11.nat genome_acgt/*.fa 2>b11.nerr &&
        cmp -s <(sort b11.got) <(sort b11.nat); then
        ok
    else
        bad "b11: --pam NGG --dna-bulge 1 --rna-bulge 1 rows differ from the Cas-OFFinder file's: $(head -2 b11.nerr)"
    fi
else
    skipped=$((skipped + 3))
    echo "guides.sh: 3 skipped (tool: Cas-OFFinder 3.0.0 did not run)"
fi
finish
