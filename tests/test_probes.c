/* test_probes.c - probe files (probes.h): the three formats, gzip, the
 * alphabet choice, case and U, and every way a probe file can be wrong. */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes.h"
#include "testutil.h"

static char *g_dir;

static void setup(void) { g_dir = tu_mkdtemp(); }
static void teardown(void)
{
    tu_rmtree(g_dir);
    g_dir = NULL;
}

static char *write_probes(const char *name, const char *text)
{
    char *path = tu_path(g_dir, name);
    tu_write_file(path, text, strlen(text));
    return path;
}

static ps_probes_t *load_ok(const char *path, ps_alpha_req_t req)
{
    ps_probes_t *p = NULL;
    ps_err_t err = {0};
    int rc = ps_probes_load(&p, path, req, 2, &err);
    ck_assert_msg(rc == PS_OK, "loading %s: %s", path, err.msg);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* Loading must fail with a message naming the file (and line when > 0). */
static void load_fails(const char *path, ps_alpha_req_t req, unsigned long line)
{
    ps_probes_t *p = NULL;
    ps_err_t err = {0};
    int rc = ps_probes_load(&p, path, req, 2, &err);
    ck_assert_msg(rc < 0, "loading %s should fail", path);
    ck_assert_int_eq(err.code, rc);
    ck_assert_msg(strstr(err.msg, path) != NULL, "message does not name %s: \"%s\"", path, err.msg);
    ck_assert_msg(strchr(err.msg, '\n') == NULL, "message is more than one line: \"%s\"", err.msg);
    if (line)
        ck_assert_msg(tu_msg_has_number(err.msg, line), "message does not give line %lu: \"%s\"",
                      line, err.msg);
}

/* Checks names, upper-cased sequences and codes. */
static void check_probes(const ps_probes_t *p, ps_alpha_t alpha, uint32_t n, const char *const *names,
                         const char *const *seqs)
{
    ck_assert_uint_eq(p->n, n);
    ck_assert_int_eq(p->alpha, alpha);
    int k = (int)strlen(seqs[0]);
    ck_assert_int_eq(p->k, k);
    uint8_t table[256];
    ps_alpha_table(alpha, table);
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_str_eq(p->name[i], names[i]);
        ck_assert_str_eq(p->seq[i], seqs[i]);
        for (int j = 0; j < k; j++) {
            uint8_t want = table[(unsigned char)seqs[i][j]];
            ck_assert_msg(want < ps_alpha_sigma(alpha), "test expects a symbol");
            ck_assert_uint_eq(p->code[(size_t)i * (size_t)k + (size_t)j], want);
        }
    }
}

START_TEST(test_fasta)
{
    char *path = write_probes("p.fa", ">p1 first probe\nACGT\nac\n>p2\nggccTT\n>p3\tx\nAC\nGTAC\n");
    ps_probes_t *p = load_ok(path, PS_ALPHA_AUTO);
    const char *names[3] = {"p1", "p2", "p3"};
    const char *seqs[3] = {"ACGTAC", "GGCCTT", "ACGTAC"};
    check_probes(p, PS_DNA, 3, names, seqs);
    ck_assert_int_eq(p->alpha_auto, 1);
    ps_probes_free(p);
    free(path);
}
END_TEST

START_TEST(test_tsv_lines)
{
    char *path = write_probes("p.tsv", "# probes for a test\nfirst\tACGT\n\nsecond\tttgA\n#x\tAAAA\nthird one\tCCCC\n");
    ps_probes_t *p = load_ok(path, PS_ALPHA_DNA);
    const char *names[3] = {"first", "second", "third one"};
    const char *seqs[3] = {"ACGT", "TTGA", "CCCC"};
    check_probes(p, PS_DNA, 3, names, seqs);
    ck_assert_int_eq(p->alpha_auto, 0);
    ps_probes_free(p);
    free(path);
}
END_TEST

START_TEST(test_plain_lines)
{
    char *path = write_probes("p.txt", "ACGTA\n\n# comment\ntgcaa\nACGTA\n");
    ps_probes_t *p = load_ok(path, PS_ALPHA_AUTO);
    /* The name is the sequence as written in the file. */
    ck_assert_uint_eq(p->n, 3);
    ck_assert_str_eq(p->name[0], "ACGTA");
    ck_assert_str_eq(p->seq[1], "TGCAA");
    ck_assert_int_eq(strcasecmp(p->name[1], "tgcaa"), 0);
    ck_assert_str_eq(p->seq[2], "ACGTA");
    ck_assert_int_eq(p->k, 5);
    ck_assert_int_eq(p->alpha, PS_DNA);
    ck_assert_int_eq(memcmp(p->code, p->code + 10, 5), 0);
    ps_probes_free(p);
    free(path);

    /* No final newline, CRLF line ends. */
    path = write_probes("crlf.txt", "one\tACGT\r\ntwo\tTTTT\r\nthree\tGGGG");
    p = load_ok(path, PS_ALPHA_AUTO);
    const char *names[3] = {"one", "two", "three"};
    const char *seqs[3] = {"ACGT", "TTTT", "GGGG"};
    check_probes(p, PS_DNA, 3, names, seqs);
    ps_probes_free(p);
    free(path);

    path = write_probes("crlf.fa", ">a\r\nACG\r\nT\r\n>b x\r\nGGGG\r\n");
    p = load_ok(path, PS_ALPHA_AUTO);
    const char *fnames[2] = {"a", "b"};
    const char *fseqs[2] = {"ACGT", "GGGG"};
    check_probes(p, PS_DNA, 2, fnames, fseqs);
    ps_probes_free(p);
    free(path);
}
END_TEST

START_TEST(test_gzip_file)
{
    const char *text = ">x\nMKVLAW\n>y\nmkvlaa\n";
    char *path = tu_path(g_dir, "p.fa.gz");
    tu_write_gzip(path, text, strlen(text));
    ps_probes_t *p = load_ok(path, PS_ALPHA_AUTO);
    const char *names[2] = {"x", "y"};
    const char *seqs[2] = {"MKVLAW", "MKVLAA"};
    check_probes(p, PS_PROTEIN, 2, names, seqs);
    ck_assert_int_eq(p->alpha_auto, 1);
    ps_probes_free(p);
    free(path);
}
END_TEST

START_TEST(test_auto_alphabet)
{
    /* Only ACGTU (any case): DNA. */
    char *path = write_probes("a.txt", "ACGU\nacgu\nTTTT\n");
    ps_probes_t *p = load_ok(path, PS_ALPHA_AUTO);
    ck_assert_int_eq(p->alpha, PS_DNA);
    ck_assert_int_eq(p->alpha_auto, 1);
    /* U is kept as written (upper-cased) and codes as T. */
    ck_assert_str_eq(p->seq[0], "ACGU");
    ck_assert_str_eq(p->seq[1], "ACGU");
    ck_assert_uint_eq(p->code[3], 3);
    ck_assert_uint_eq(p->code[7], 3);
    ck_assert_uint_eq(p->code[8], 3);
    ps_probes_free(p);
    free(path);

    /* One protein letter makes the whole set protein, DNA-looking probes too. */
    path = write_probes("b.txt", "ACGT\nMKVL\n");
    p = load_ok(path, PS_ALPHA_AUTO);
    const char *names[2] = {"ACGT", "MKVL"};
    const char *seqs[2] = {"ACGT", "MKVL"};
    check_probes(p, PS_PROTEIN, 2, names, seqs);
    ck_assert_int_eq(p->alpha_auto, 1);
    ps_probes_free(p);
    free(path);

    /* N is any base: a probe of bases and N is a degenerate DNA probe, but
     * one with a letter that is no base makes the set protein. */
    path = write_probes("c.txt", "ACGN\n");
    p = load_ok(path, PS_ALPHA_AUTO);
    ck_assert_int_eq(p->alpha, PS_DNA);
    ck_assert_int_eq(p->patterns, 1);
    ps_probes_free(p);
    free(path);
    path = write_probes("c2.txt", "ACGN\nMKVL\n");
    p = load_ok(path, PS_ALPHA_AUTO);
    ck_assert_int_eq(p->alpha, PS_PROTEIN);
    ps_probes_free(p);
    free(path);

    /* Rare residues and the stop. */
    path = write_probes("d.txt", "BZXUOJ*\n");
    p = load_ok(path, PS_ALPHA_AUTO);
    const char *rn[1] = {"BZXUOJ*"};
    check_probes(p, PS_PROTEIN, 1, rn, rn);
    ps_probes_free(p);
    free(path);

    /* Forced protein for DNA letters: literal residues. */
    path = write_probes("e.txt", "ACGT\n");
    p = load_ok(path, PS_ALPHA_PROTEIN);
    const char *en[1] = {"ACGT"};
    check_probes(p, PS_PROTEIN, 1, en, en);
    ck_assert_int_eq(p->alpha_auto, 0);
    ps_probes_free(p);
    free(path);
}
END_TEST

/* Degenerate DNA probes never flip a DNA set to protein silently: at least
 * 90% ACGTU and the rest IUPAC codes is DNA, read as patterns with classes;
 * a set the probes disagree on says so in alpha_note. */
START_TEST(test_auto_degenerate)
{
    char *path = write_probes("deg.txt", "ACGTACGTACGTACGTACGA\nACGTACGTACNTACGTACGA\nACGTACGTACGTACGTACGT\n");
    ps_probes_t *p = load_ok(path, PS_ALPHA_AUTO);
    ck_assert_int_eq(p->alpha, PS_DNA);
    ck_assert_int_eq(p->patterns, 1);
    ck_assert_uint_eq(p->len[1], 20);
    ck_assert_uint_eq(p->cls[1 * 20 + 10], 15); /* N: any base */
    ck_assert_uint_eq(p->cls[1 * 20 + 11], 8);
    ck_assert_str_eq(p->seq[1], "ACGTACGTACNTACGTACGA");
    ck_assert_str_eq(p->alpha_note, "");
    ps_probes_free(p);
    free(path);
    /* Unanimous: no note. */
    path = write_probes("dna.txt", "ACGTACGT\nTTGGCCAA\n");
    p = load_ok(path, PS_ALPHA_AUTO);
    ck_assert_int_eq(p->alpha, PS_DNA);
    ck_assert_str_eq(p->alpha_note, "");
    ps_probes_free(p);
    free(path);
    path = write_probes("pep.txt", "MKVLAWHE\nPPQRSTVW\n");
    p = load_ok(path, PS_ALPHA_AUTO);
    ck_assert_int_eq(p->alpha, PS_PROTEIN);
    ck_assert_str_eq(p->alpha_note, "");
    ps_probes_free(p);
    free(path);
    /* Not unanimous: protein, and a note naming one of each. */
    path = write_probes("mix.txt", "ACGTACGTAC\nMKVLAWHEKK\n");
    p = load_ok(path, PS_ALPHA_AUTO);
    ck_assert_int_eq(p->alpha, PS_PROTEIN);
    ck_assert_msg(strstr(p->alpha_note, "ACGTACGTAC") && strstr(p->alpha_note, "MKVLAWHEKK"), "%s", p->alpha_note);
    ps_probes_free(p);
    free(path);
    /* A UTF-8 byte-order mark before the first line is not part of it. */
    path = write_probes("bom.txt", "\xef\xbb\xbfp1\tACGTACGT\nTTGGCCAA\n");
    p = load_ok(path, PS_ALPHA_AUTO);
    ck_assert_int_eq(p->alpha, PS_DNA);
    ck_assert_str_eq(p->name[0], "p1");
    ck_assert_str_eq(p->seq[0], "ACGTACGT");
    ps_probes_free(p);
    free(path);
    path = write_probes("bom.fa", "\xef\xbb\xbf>p1\nACGTACGT\n");
    p = load_ok(path, PS_ALPHA_AUTO);
    ck_assert_str_eq(p->name[0], "p1");
    ps_probes_free(p);
    free(path);
    /* Explicit -a dna with an IUPAC code: a pattern; X is no DNA letter. */
    path = write_probes("n.txt", "ACGTNACGTA\n");
    p = load_ok(path, PS_ALPHA_DNA);
    ck_assert(p->patterns && p->cls[4] == 15);
    ps_probes_free(p);
    free(path);
    path = write_probes("x.txt", "ACGT\nACGTXACGTA\n");
    load_fails(path, PS_ALPHA_DNA, 2);
    free(path);
}
END_TEST

START_TEST(test_max_k)
{
    char *text = malloc(PS_MAX_K + 2);
    ck_assert_ptr_nonnull(text);
    for (int i = 0; i < PS_MAX_K; i++) text[i] = "ACGT"[i % 4];
    text[PS_MAX_K] = '\n';
    text[PS_MAX_K + 1] = '\0';
    char *path = write_probes("max.txt", text);
    ps_probes_t *p = load_ok(path, PS_ALPHA_AUTO);
    ck_assert_int_eq(p->k, PS_MAX_K);
    ps_probes_free(p);
    free(path);
    free(text);

    /* k = 1 works too. */
    path = write_probes("one.txt", "A\nc\n");
    p = load_ok(path, PS_ALPHA_DNA);
    ck_assert_int_eq(p->k, 1);
    ck_assert_uint_eq(p->code[1], 1);
    ps_probes_free(p);
    free(path);
}
END_TEST

START_TEST(test_errors)
{
    char *path = tu_path(g_dir, "missing.txt");
    load_fails(path, PS_ALPHA_AUTO, 0);
    free(path);

    path = write_probes("empty.txt", "");
    load_fails(path, PS_ALPHA_AUTO, 0);
    free(path);

    path = write_probes("blank.txt", "\n# only a comment\n\n");
    load_fails(path, PS_ALPHA_AUTO, 0);
    free(path);

    /* Lengths may differ: the probes become patterns, k the longest. */
    path = write_probes("len.txt", "ACGT\nACGT\nACG\nACGTA\n");
    ps_probes_t *lp = load_ok(path, PS_ALPHA_AUTO);
    ck_assert_int_eq(lp->patterns, 1);
    ck_assert_int_eq(lp->k, 5);
    ck_assert_uint_eq(lp->len[2], 3);
    ps_probes_free(lp);
    free(path);
    path = write_probes("bad_pattern.txt", "ACGT\nC-x(2,4-C\n");
    load_fails(path, PS_ALPHA_AUTO, 2);
    free(path);

    /* The line of a pattern that cannot be read. */
    path = write_probes("len.tsv", "# header\na\tACGTA\n\nb\tA-C-[GT\n");
    load_fails(path, PS_ALPHA_AUTO, 4);
    free(path);

    path = write_probes("len.fa", ">a\nACGT\n>b\nACGTA\n");
    ps_probes_t *lf = load_ok(path, PS_ALPHA_AUTO);
    ck_assert(lf->patterns && lf->k == 5 && lf->len[0] == 4);
    ps_probes_free(lf);
    free(path);

    /* An empty FASTA record is a probe of length 0. */
    path = write_probes("emptyrec.fa", ">a\n>b\nACGT\n");
    load_fails(path, PS_ALPHA_AUTO, 0);
    free(path);

    /* Letters outside the alphabet. */
    path = write_probes("bad_dna.txt", "ACGT\nACJT\n");
    load_fails(path, PS_ALPHA_DNA, 2);
    free(path);

    path = write_probes("n_dna.txt", "ACGT\nAC-T\n");
    load_fails(path, PS_ALPHA_DNA, 2);
    free(path);

    path = write_probes("digit.txt", "MKVL\nMK1L\n");
    load_fails(path, PS_ALPHA_PROTEIN, 2);
    free(path);

    path = write_probes("dash.txt", "MKVL\nMK-L\n");
    load_fails(path, PS_ALPHA_AUTO, 2);
    free(path);

    path = write_probes("prot_as_dna.fa", ">a\nMKVL\n");
    load_fails(path, PS_ALPHA_DNA, 0);
    free(path);

    /* Too long. */
    char *text = malloc(PS_MAX_K + 3);
    ck_assert_ptr_nonnull(text);
    for (int i = 0; i <= PS_MAX_K; i++) text[i] = "ACGT"[i % 4];
    text[PS_MAX_K + 1] = '\n';
    text[PS_MAX_K + 2] = '\0';
    path = write_probes("long.txt", text);
    load_fails(path, PS_ALPHA_AUTO, 1);
    free(path);
    free(text);

    /* A binary file. */
    static const char bin[] = "\x7f" "ELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e";
    path = tu_path(g_dir, "bin");
    tu_write_file(path, bin, sizeof bin - 1);
    load_fails(path, PS_ALPHA_AUTO, 0);
    free(path);
}
END_TEST

START_TEST(test_from_strings)
{
    ps_probes_t *p = NULL;
    ps_err_t err = {0};
    const char *seqs[3] = {"acgu", "TTTT", "GgCc"};
    const char *names[3] = {"a", "b", "c"};
    ck_assert_int_eq(ps_probes_from_strings(&p, 3, seqs, names, PS_ALPHA_AUTO, &err), PS_OK);
    const char *up[3] = {"ACGU", "TTTT", "GGCC"};
    check_probes(p, PS_DNA, 3, names, up);
    ps_probes_free(p);

    /* Without names, each name is its sequence. */
    ck_assert_int_eq(ps_probes_from_strings(&p, 3, seqs, NULL, PS_ALPHA_DNA, &err), PS_OK);
    ck_assert_uint_eq(p->n, 3);
    for (int i = 0; i < 3; i++) ck_assert_int_eq(strcasecmp(p->name[i], seqs[i]), 0);
    ps_probes_free(p);

    p = NULL;
    const char *uneven[2] = {"ACGT", "ACG"};
    ck_assert_int_eq(ps_probes_from_strings(&p, 2, uneven, NULL, PS_ALPHA_AUTO, &err), 0);
    ck_assert(p->patterns && p->k == 4 && p->len[1] == 3);
    ps_probes_free(p);
    p = NULL;
    ck_assert_int_lt(ps_probes_from_strings(&p, 0, seqs, NULL, PS_ALPHA_AUTO, &err), 0);
    p = NULL;
    const char *withx[1] = {"ACXT"};
    ck_assert_int_lt(ps_probes_from_strings(&p, 1, withx, NULL, PS_ALPHA_DNA, &err), 0);
    p = NULL;
    const char *empty[1] = {""};
    ck_assert_int_lt(ps_probes_from_strings(&p, 1, empty, NULL, PS_ALPHA_AUTO, &err), 0);
    p = NULL;
    char *toolong = malloc(PS_MAX_K + 2);
    ck_assert_ptr_nonnull(toolong);
    memset(toolong, 'A', PS_MAX_K + 1);
    toolong[PS_MAX_K + 1] = '\0';
    const char *tl[1] = {toolong};
    ck_assert_int_lt(ps_probes_from_strings(&p, 1, tl, NULL, PS_ALPHA_AUTO, &err), 0);
    free(toolong);
}
END_TEST

/* Many probes: order kept, names and codes right. */
START_TEST(test_many)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, tu_seed() ^ 0xb1);
    const uint32_t n = 5000;
    const int k = 21;
    tu_buf_t b = {0};
    char **seqs = malloc(n * sizeof *seqs);
    char **names = malloc(n * sizeof *names);
    ck_assert(seqs && names);
    for (uint32_t i = 0; i < n; i++) {
        seqs[i] = malloc(k + 1);
        names[i] = malloc(24);
        ck_assert(seqs[i] && names[i]);
        for (int j = 0; j < k; j++) seqs[i][j] = "ACGT"[tu_rng_below(&rng, 4)];
        seqs[i][k] = '\0';
        snprintf(names[i], 24, "probe_%u", i);
        tu_buf_printf(&b, ">%s desc %u\n", names[i], i);
        for (int j = 0; j < k; j++) tu_buf_putc(&b, i % 2 ? (char)tolower(seqs[i][j]) : seqs[i][j]);
        tu_buf_putc(&b, '\n');
    }
    char *path = write_probes("many.fa", b.p);
    ps_probes_t *p = load_ok(path, PS_ALPHA_AUTO);
    check_probes(p, PS_DNA, n, (const char *const *)names, (const char *const *)seqs);
    ps_probes_free(p);
    free(path);
    for (uint32_t i = 0; i < n; i++) {
        free(seqs[i]);
        free(names[i]);
    }
    free(seqs);
    free(names);
    tu_buf_free(&b);
}
END_TEST

/* Whitespace inside a sequence is not part of it, in every format; a line
 * without a tab is named by its sequence so cleaned. */
START_TEST(test_spaces_in_sequences)
{
    char *path = write_probes("sp.tsv", "a\tAC GT\nb\tT\vT\fT T\nc\t  gg gg\tAA\n");
    ps_probes_t *p = load_ok(path, PS_ALPHA_AUTO);
    const char *names[3] = {"a", "b", "c"};
    const char *seqs[3] = {"ACGT", "TTTT", "GGGG"};
    check_probes(p, PS_DNA, 3, names, seqs);
    ps_probes_free(p);
    free(path);
    /* Lengths count letters only. */
    path = write_probes("sp2.tsv", "a\tAC GT\nb\tAC G \t\n");
    p = load_ok(path, PS_ALPHA_AUTO);
    ck_assert(p->patterns && p->k == 4 && p->len[1] == 3);
    ps_probes_free(p);
    free(path);

    path = write_probes("sp.txt", "AC GT\n t t\vT T\n");
    p = load_ok(path, PS_ALPHA_AUTO);
    ck_assert_str_eq(p->name[0], "ACGT");
    ck_assert_str_eq(p->name[1], "ttTT");
    ck_assert_str_eq(p->seq[1], "TTTT");
    ps_probes_free(p);
    free(path);

    path = write_probes("sp.fa", ">a\nAC GT\n>b\n\tTT\nT T\n>c\nMK VL\n");
    p = load_ok(path, PS_ALPHA_AUTO);
    const char *fnames[3] = {"a", "b", "c"};
    const char *fseqs[3] = {"ACGT", "TTTT", "MKVL"};
    check_probes(p, PS_PROTEIN, 3, fnames, fseqs);
    ck_assert_msg(strstr(p->alpha_note, "'a'") && strstr(p->alpha_note, "'c'"), "%s", p->alpha_note);
    ps_probes_free(p);
    free(path);
}
END_TEST

/* A file of many of htslib's blocks, lines running across them: every
 * probe and line number right, plain and gzip; a NUL deep in the file names
 * its line; a gzip file cut short fails as a read error. */
START_TEST(test_across_blocks)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, tu_seed() ^ 0xb2);
    const uint32_t n = 3000;
    const int k = 25;
    tu_buf_t b = {0};
    char (*seqs)[26] = malloc(n * sizeof *seqs);
    ck_assert_ptr_nonnull(seqs);
    for (uint32_t i = 0; i < n; i++) {
        for (int j = 0; j < k; j++) seqs[i][j] = "ACGT"[tu_rng_below(&rng, 4)];
        seqs[i][k] = '\0';
        /* Names up to 200 bytes long, so that lines end anywhere in a block. */
        tu_buf_printf(&b, "p%u_", i);
        for (uint64_t j = tu_rng_below(&rng, 200); j > 0; j--) tu_buf_putc(&b, 'x');
        tu_buf_printf(&b, "\t%s\n", seqs[i]);
    }
    ck_assert_uint_gt(b.n, 4 * 65536);
    char *plain = write_probes("blocks.tsv", b.p);
    char *gz = tu_path(g_dir, "blocks.tsv.gz");
    tu_write_gzip(gz, b.p, b.n);
    uint8_t table[256];
    ps_alpha_table(PS_DNA, table);
    for (int z = 0; z < 2; z++) {
        ps_probes_t *p = load_ok(z ? gz : plain, PS_ALPHA_AUTO);
        ck_assert_uint_eq(p->n, n);
        ck_assert_int_eq(p->k, k);
        for (uint32_t i = 0; i < n; i++) {
            ck_assert_str_eq(p->seq[i], seqs[i]);
            char want[16];
            snprintf(want, sizeof want, "p%u_", i);
            ck_assert_msg(!strncmp(p->name[i], want, strlen(want)), "probe %u is %s", i, p->name[i]);
            for (int j = 0; j < k; j++)
                ck_assert_uint_eq(p->code[(size_t)i * k + (size_t)j], table[(unsigned char)seqs[i][j]]);
        }
        ps_probes_free(p);
    }
    free(gz);

    /* A NUL on line 2500, far past the first block. */
    char *line = b.p;
    for (int i = 1; i < 2500; i++) line = strchr(line, '\n') + 1;
    char saved = line[1];
    line[1] = '\0';
    char *bin = tu_path(g_dir, "nul.tsv");
    tu_write_file(bin, b.p, b.n);
    load_fails(bin, PS_ALPHA_AUTO, 2500);
    free(bin);

    /* Cut short: a read error that names the file. */
    line[1] = saved;
    char *cut = tu_path(g_dir, "cut.tsv.gz");
    tu_write_gzip(cut, b.p, b.n);
    FILE *f = fopen(cut, "rb");
    ck_assert_ptr_nonnull(f);
    char *z = malloc(b.n + 1024);
    ck_assert_ptr_nonnull(z);
    size_t zlen = fread(z, 1, b.n + 1024, f);
    ck_assert_int_eq(fclose(f), 0);
    tu_write_file(cut, z, zlen / 2);
    ps_probes_t *p = NULL;
    ps_err_t err = {0};
    ck_assert_int_eq(ps_probes_load(&p, cut, PS_ALPHA_AUTO, 2, &err), PS_E_IO);
    ck_assert_msg(strstr(err.msg, cut) && strstr(err.msg, "truncated"), "%s", err.msg);
    free(z);
    free(cut);
    free(plain);
    free(seqs);
    tu_buf_free(&b);
}
END_TEST

/* Loads path on one thread and on `threads`: the same outcome, to the byte
 * of every name, sequence and code, or the same error. Returns the return
 * code; the error message (one thread's) in msg. */
static int load_agrees(const char *path, ps_alpha_req_t req, int threads, char *msg, size_t msg_len)
{
    ps_probes_t *p[2] = {NULL, NULL};
    ps_err_t err[2] = {{0}, {0}};
    int rc[2];
    rc[0] = ps_probes_load(&p[0], path, req, 1, &err[0]);
    rc[1] = ps_probes_load(&p[1], path, req, threads, &err[1]);
    ck_assert_msg(rc[0] == rc[1], "%s: %d on one thread (%s), %d on %d (%s)", path, rc[0], err[0].msg, rc[1], threads,
                  err[1].msg);
    if (rc[0] < 0) {
        ck_assert_msg(!strcmp(err[0].msg, err[1].msg), "one thread: %s\n%d threads: %s", err[0].msg, threads,
                      err[1].msg);
        snprintf(msg, msg_len, "%s", err[0].msg);
        return rc[0];
    }
    const ps_probes_t *a = p[0], *b = p[1];
    ck_assert_uint_eq(a->n, b->n);
    ck_assert_int_eq(a->k, b->k);
    ck_assert_int_eq(a->alpha, b->alpha);
    ck_assert_int_eq(a->patterns, b->patterns);
    ck_assert_str_eq(a->alpha_note, b->alpha_note);
    for (uint32_t i = 0; i < a->n; i++) {
        ck_assert_str_eq(a->name[i], b->name[i]);
        ck_assert_str_eq(a->seq[i], b->seq[i]);
    }
    if (a->patterns) {
        for (uint32_t i = 0; i < a->n; i++) ck_assert_uint_eq(a->len[i], b->len[i]);
        ck_assert(!memcmp(a->opt, b->opt, (size_t)a->n * (size_t)a->k));
    } else {
        ck_assert(!memcmp(a->code, b->code, (size_t)a->n * (size_t)a->k));
    }
    ps_probes_free(p[0]);
    ps_probes_free(p[1]);
    msg[0] = '\0';
    return PS_OK;
}

/* Files of several MB, which are parsed in parts on several threads: every
 * format, with a byte-order mark, CRLF line ends, blank and comment lines,
 * wrapped FASTA, lower case and U, lengths that differ; and a bad line at a
 * random place (a NUL byte, a letter outside the alphabet), which must be
 * reported at its line as one thread reports it; and a truncated gzip copy. */
START_TEST(test_threads_agree)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, tu_seed() ^ 0xb3);
    for (int round = 0; round < 8; round++) {
        int format = round % 4; /* FASTA, wrapped FASTA, name<TAB>seq, seq */
        int crlf = tu_rng_chance(&rng, 30), mixed = tu_rng_chance(&rng, 20), threads = (int)tu_rng_range(&rng, 2, 6);
        const char *eol = crlf ? "\r\n" : "\n";
        size_t target = (size_t)tu_rng_range(&rng, 2500000, 5000000);
        /* The bad probe: the first past a random share of the file. */
        size_t bad_from = tu_rng_chance(&rng, 70) ? target / 100 * (size_t)tu_rng_range(&rng, 5, 98) : SIZE_MAX;
        uint32_t bad_at = UINT32_MAX;
        /* A NUL, a J, or (not in plain lines, which skip empty ones) an empty probe. */
        int bad_kind = (int)tu_rng_below(&rng, format == 3 ? 2 : 3);
        unsigned long bad_line = 0, line = 1;
        tu_buf_t b = {0};
        if (tu_rng_chance(&rng, 30)) tu_buf_puts(&b, "\xef\xbb\xbf");
        for (uint64_t j = tu_rng_below(&rng, 3); j > 0; j--, line++) tu_buf_printf(&b, "%s%s", j % 2 ? "" : "# c", eol);
        for (uint32_t i = 0; b.n < target; i++) {
            int k = mixed ? (int)tu_rng_range(&rng, 18, 30) : 25;
            if (bad_at == UINT32_MAX && b.n >= bad_from) bad_at = i;
            char seq[40];
            for (int j = 0; j < k; j++) seq[j] = "ACGTacgtU"[tu_rng_below(&rng, i % 7 ? 4 : 9)];
            seq[k] = '\0';
            unsigned long probe_line = line; /* the line an error in its letters names */
            if (format <= 1) {
                tu_buf_printf(&b, ">p%u desc%s", i, eol);
                line++;
            }
            if (format == 2) tu_buf_printf(&b, "n%u\t", i);
            unsigned long seq_line = line;
            size_t seq_start = b.n;
            if (i == bad_at && bad_kind == 2) {
                k = 0;
                seq[0] = '\0';
                bad_line = probe_line;
            }
            if (i == bad_at && bad_kind == 1) {
                seq[tu_rng_below(&rng, (uint64_t)k)] = 'J';
                bad_line = probe_line;
            }
            if (format == 1) {
                /* Lines of 1 to 12 letters, now and then a blank one. */
                for (int j = 0; j < k;) {
                    int w = (int)tu_rng_range(&rng, 1, 12);
                    if (w > k - j) w = k - j;
                    tu_buf_put(&b, seq + j, (size_t)w);
                    tu_buf_puts(&b, eol);
                    line++;
                    j += w;
                    if (tu_rng_chance(&rng, 3)) {
                        tu_buf_puts(&b, eol);
                        line++;
                    }
                }
            } else {
                tu_buf_puts(&b, seq);
                if (tu_rng_chance(&rng, 5)) tu_buf_puts(&b, "  ");
                tu_buf_puts(&b, eol);
                line++;
                if (format >= 2 && tu_rng_chance(&rng, 2)) {
                    tu_buf_printf(&b, "# note%s", eol);
                    line++;
                }
            }
            if (i == bad_at && !bad_kind) {
                b.p[seq_start] = '\0';
                bad_line = seq_line;
            }
        }
        char name[32];
        snprintf(name, sizeof name, "agree%d.%s", round, format <= 1 ? "fa" : "txt");
        char *path = tu_path(g_dir, name);
        tu_write_file(path, b.p, b.n);
        char msg[1024];
        int rc = load_agrees(path, bad_kind == 1 && bad_at != UINT32_MAX ? PS_ALPHA_DNA : PS_ALPHA_AUTO, threads, msg,
                             sizeof msg);
        if (bad_line) {
            ck_assert_msg(rc < 0, "round %d: the bad line %lu was not found", round, bad_line);
            ck_assert_msg(tu_msg_has_number(msg, bad_line), "round %d: message does not give line %lu: %s", round,
                          bad_line, msg);
        } else {
            ck_assert_msg(rc == PS_OK, "round %d: %s", round, msg);
        }
        if (round == 2 || round == 5) {
            /* Cut short: the lines before the damage are parsed, and the
             * same error comes on any number of threads. */
            char *gz = tu_path(g_dir, "agree.txt.gz");
            tu_write_gzip(gz, b.p, b.n);
            tu_truncate(gz, tu_file_size(gz) * 3 / 5);
            load_agrees(gz, PS_ALPHA_AUTO, threads, msg, sizeof msg);
            free(gz);
        }
        free(path);
        tu_buf_free(&b);
    }
}
END_TEST

/* A part of the file with no probe in it (over a MiB of comment lines
 * between probes, so that a whole part of the parse falls inside them):
 * the same probes on several threads as on one. */
START_TEST(test_empty_part)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, tu_seed() ^ 0xb4);
    tu_buf_t b = {0};
    for (int i = 0; i < 60000; i++) {
        if (i == 30000)
            for (int c = 0; c < 60000; c++) tu_buf_puts(&b, "# a comment line of some length\n");
        for (int j = 0; j < 25; j++) tu_buf_putc(&b, "ACGT"[tu_rng_below(&rng, 4)]);
        tu_buf_putc(&b, '\n');
    }
    char *path = write_probes("comments.txt", b.p);
    char msg[1024];
    ck_assert_msg(load_agrees(path, PS_ALPHA_AUTO, 4, msg, sizeof msg) == PS_OK, "%s", msg);
    free(path);
    tu_buf_free(&b);
}
END_TEST

Suite *suite_probes(void)
{
    Suite *s = suite_create("probes");
    TCase *tc = tcase_create("probes");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_fasta);
    tcase_add_test(tc, test_tsv_lines);
    tcase_add_test(tc, test_plain_lines);
    tcase_add_test(tc, test_gzip_file);
    tcase_add_test(tc, test_auto_alphabet);
    tcase_add_test(tc, test_auto_degenerate);
    tcase_add_test(tc, test_max_k);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_from_strings);
    tcase_add_test(tc, test_many);
    tcase_add_test(tc, test_spaces_in_sequences);
    tcase_add_test(tc, test_across_blocks);
    tcase_add_test(tc, test_threads_agree);
    tcase_add_test(tc, test_empty_part);
    suite_add_tcase(s, tc);
    return s;
}
