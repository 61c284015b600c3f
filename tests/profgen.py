#!/usr/bin/env python3
"""profgen.py - random PROSITE profiles (MATRIX entries) and proteins that
hold stretches like them, for comparing probescan's profile scores with
pfscanV3's (tests/profiles.sh). Every key pftools reads on DEFAULT, /I: and
/M: lines appears in some profile: '*' scores, implied /I: and /M: lines,
begin and end terms, protected ranges, several cut-off levels.

    python3 tests/profgen.py SEED N_PROFILES N_PROTEINS OUT.dat OUT.fa
"""
import random
import sys

ALPHA = "ABCDEFGHIKLMNPQRSTVWYZ"


def score(r, lo, hi, star=0.03):
    return "*" if r.random() < star else str(r.randint(lo, hi))


def profile(r, k):
    L = r.randint(4, 40)
    cons = "".join(r.choice("ACDEFGHIKLMNPQRSTVWY") for _ in range(L))
    n1 = r.randint(1, max(1, L // 3))
    n2 = r.randint(max(n1, L - L // 3), L)
    lines = [f"ID   RND_{k}; MATRIX.", f"AC   PS9{k:04d};", "DE   random profile.",
             f"MA   /GENERAL_SPEC: ALPHABET='{ALPHA}'; LENGTH={L};",
             f"MA   /DISJOINT: DEFINITION=PROTECT; N1={n1}; N2={n2};",
             f"MA   /NORMALIZATION: MODE=1; FUNCTION=LINEAR; R1={r.uniform(-2, 2):.4f}; R2={r.uniform(0.005, 0.03):.5f};"]
    cut = r.randint(L * 2, L * 12)
    if r.random() < 0.5:
        lines.append(f"MA   /CUT_OFF: LEVEL=1; SCORE={cut + r.randint(5, 60)}; N_SCORE=9.0; MODE=1;")
    lines.append(f"MA   /CUT_OFF: LEVEL=0; SCORE={cut}; N_SCORE=8.5; MODE=1;")
    if r.random() < 0.5:
        lines.append(f"MA   /CUT_OFF: LEVEL=-1; SCORE={cut - r.randint(5, 60)}; N_SCORE=6.5; MODE=1;")
    d = [f"D={score(r, -30, -5, 0)}", f"I={score(r, -30, -2, 0)}", f"B1={score(r, -120, 0)}", f"E1={score(r, -120, 0)}",
         f"MI={score(r, -150, -20)}", f"MD={score(r, -150, -20)}", f"IM={score(r, -150, 0)}", f"DM={score(r, -150, 0)}"]
    if r.random() < 0.3:
        d.append(f"M0={score(r, -10, 0, 0)}")
    if r.random() < 0.3:
        d.append(f"I0={score(r, -10, 0, 0)}")
    r.shuffle(d)
    lines.append("MA   /DEFAULT: " + "; ".join(d) + ";")
    ikeys = ["I", "MI", "MD", "IM", "DM", "B1", "E1", "BI", "BD", "ME", "IE", "DE", "B0", "E0", "II", "MM", "DD", "ID", "DI"]
    # A left-out /M: is implied between two /I: lines, so both are written.
    write_m = [r.random() < 0.95 for _ in range(L)]
    write_i = [r.random() < 0.75 for _ in range(L + 1)]
    for p in range(L):
        if not write_m[p]:
            write_i[p] = write_i[p + 1] = True
    for p in range(L + 1):
        if write_i[p]:
            keys = r.sample(ikeys, r.randint(0, 4))
            kv = [f"{k}={score(r, -160, 0)}" for k in keys]
            lines.append("MA   /I: " + "; ".join(kv) + (";" if kv else ""))
        if p == L:
            break
        if write_m[p]:
            ms = []
            for a in ALPHA:
                ms.append(str(r.randint(10, 45)) if a == cons[p] else score(r, -25, 8, 0.01))
            extra = f" D={score(r, -30, -5)};" if r.random() < 0.3 else ""
            lines.append(f"MA   /M: SY='{cons[p]}'; M={','.join(ms)};{extra}")
    lines.append("//")
    return cons, "\n".join(lines)


def protein(r, conses):
    seq = []
    for _ in range(r.randint(0, 3)):
        seq.append("".join(r.choice("ACDEFGHIKLMNPQRSTVWYXBZ") for _ in range(r.randint(0, 60))))
        c = r.choice(conses)
        body = []
        for ch in c:
            x = r.random()
            if x < 0.1:
                continue
            body.append(r.choice("ACDEFGHIKLMNPQRSTVWY") if x < 0.25 else ch)
            if r.random() < 0.05:
                body.append(r.choice("ACDEFGHIKLMNPQRSTVWY"))
        seq.append("".join(body))
    seq.append("".join(r.choice("ACDEFGHIKLMNPQRSTVWY") for _ in range(r.randint(1, 40))))
    return "".join(seq)


def main():
    seed, n_prf, n_seq, out_dat, out_fa = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    r = random.Random(seed)
    conses = []
    with open(out_dat, "w") as f:
        for k in range(n_prf):
            c, text = profile(r, k)
            conses.append(c)
            f.write(text + "\n")
    with open(out_fa, "w") as f:
        for i in range(n_seq):
            s = protein(r, conses)
            f.write(f">rnd{i}\n")
            for j in range(0, len(s), 60):
                f.write(s[j:j + 60] + "\n")


main()
