#!/usr/bin/env bash
# guides.sh - CRISPR guides against Cas-OFFinder 2.4.1, the off-target
# search CRISPR users run: its input files read by `-p`, its rows written by
# `--format cas-offinder`, and the same searches written natively (--pam,
# --pam5, a limit per probe in a third column), on a real genome folder
# (E. coli and yeast chromosome I, two FASTA files, and the same as one
# 2bit file for the SpCas9 case). Cases:
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
DATA=${PS_DATA:-}
case $DATA in "" | /*) ;; *) DATA=$PWD/$DATA ;; esac
PEERS=${PS_PEERS:-${DATA:+$DATA/../peers}}
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
CASES=5 CHECKS_PER_CASE=3
skip_all() {
    skipped=$((CASES * CHECKS_PER_CASE + 1))
    echo "guides.sh: $skipped skipped ($1: $2)"
    finish
}

[ -n "$DATA" ] && [ -r "$DATA/ecoli_K12_MG1655.fa.gz" ] && [ -r "$DATA/yeast_S288C_R64-1-1.bgzf.fa.gz" ] ||
    skip_all data "PS_DATA with ecoli_K12_MG1655.fa.gz and yeast_S288C_R64-1-1.bgzf.fa.gz not found"
tarball=$PEERS/cas-offinder-2.4.1.tar.gz
[ -r "$tarball" ] || skip_all data "Cas-OFFinder 2.4.1 source not found (PS_PEERS or ../shared/peers)"
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
zcat "$DATA/ecoli_K12_MG1655.fa.gz" >genome/ecoli.fa
zcat "$DATA/yeast_S288C_R64-1-1.bgzf.fa.gz" | awk '/^>/ { n++ } n == 1' >genome/yeast_chrI.fa

seed=${PS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "guides.sh: seed $seed (PS_SEED=$seed repeats this run)"

# Writes case files: NAME.cof (Cas-OFFinder input) and NAME.tsv (the same
# guides as name<TAB>spacer<TAB>limit, for --pam/--pam5).
python3 - "$seed" "$work/genome" <<'EOF' || { echo "FAIL: writing the cases"; exit 1; }
import os, random, sys
rnd = random.Random(int(sys.argv[1]))
folder = sys.argv[2]
seq = []
for fn in sorted(os.listdir(folder)):
    cur = []
    for line in open(os.path.join(folder, fn)):
        if line.startswith('>'):
            if cur: seq.append(''.join(cur)); cur = []
        else:
            cur.append(line.strip().upper())
    if cur: seq.append(''.join(cur))
IUPAC = {'A': 'A', 'C': 'C', 'G': 'G', 'T': 'T', 'R': 'AG', 'Y': 'CT', 'S': 'CG', 'W': 'AT', 'K': 'GT',
         'M': 'AC', 'B': 'CGT', 'D': 'AGT', 'H': 'ACT', 'V': 'ACG', 'N': 'ACGT'}
COMP = {'A': 'T', 'C': 'G', 'G': 'C', 'T': 'A'}
def rc(s): return ''.join(COMP[c] for c in reversed(s))
def fits(site, pat): return all(c in IUPAC[p] for c, p in zip(site, pat))
def sample(pat, n, pam, five):
    """Guides at sites matching pat on either strand, a few bases changed,
    N over the PAM."""
    L = len(pat)
    P = len(pam or '')
    out = []
    while len(out) < n:
        s = rnd.choice(seq)
        i = rnd.randrange(len(s) - L)
        site = s[i:i + L]
        if any(c not in 'ACGT' for c in site): continue
        if rnd.random() < 0.5: site = rc(site)
        if not fits(site, pat): continue
        g = list(site)
        for _ in range(rnd.randrange(3)):
            j = rnd.randrange(L)
            g[j] = rnd.choice('ACGT')
        out.append('N' * P + ''.join(g[P:]) if five else ''.join(g[:L - P]) + 'N' * P)
    return out
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
EOF

# A note beside the genome, which both pass over.
echo "two genomes" >genome/README

# Cas-OFFinder's rows with the record column cut at its first blank.
cof_rows() { awk -F'\t' 'BEGIN { OFS = "\t" } { sub(/ .*/, "", $2); print }' "$1" | sort; }

for spec in spcas9:NGG:3 nrg:NRG:3 cas12a:TTTV:5 sacas9:NNGRRT:3 nopam::; do
    IFS=: read -r name pam side <<<"$spec"
    if ! "$cof" "$name.cof" C "$name.out" >"$name.coflog" 2>&1; then
        tail -3 "$name.coflog"
        skipped=$((skipped + CHECKS_PER_CASE))
        echo "guides.sh: $CHECKS_PER_CASE skipped (tool: Cas-OFFinder did not run on the CPU: no OpenCL CPU device? Debian: pocl-opencl-icd)"
        continue
    fi
    cof_rows "$name.out" >"$name.want"
    echo "guides.sh: $name: Cas-OFFinder wrote $(wc -l <"$name.want") rows ($(awk -F'\t' '$5 == "-"' "$name.want" | wc -l) on '-', $(awk -F'\t' '$6 > 0' "$name.want" | wc -l) with mismatches)"
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
    # 2. count: a guide's sites, summed over its mismatch columns, are its rows.
    if "$bin" count -q -p "$name.cof" -o "$name.counts" 2>"$name.cerr"; then
        awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^mm[0-9]+$/) m[i] = 1; next }
                    { t = 0; for (i in m) t += $i; if (t) print $1 "\t" t }' "$name.counts" | sort >"$name.cnt"
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
finish
