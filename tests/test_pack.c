/* test_pack.c - the packed chunk layout of pack.h: round trips for both
 * alphabets, the exact word layout, the restart list and the record list. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"
#include "testutil.h"

static void init_chunk(ps_chunk_t *c, ps_alpha_t a, uint64_t cap, uint32_t cap_restart)
{
    ps_err_t err = {0};
    int rc = ps_chunk_init(c, a, cap, cap_restart, NULL, &err);
    ck_assert_msg(rc == PS_OK, "ps_chunk_init: %s", err.msg);
}

/* The word that symbols ref[w*per .. ) must make, built independently. */
static uint32_t expected_word(const uint32_t *ref, uint64_t n, uint64_t w, int bits, uint32_t per)
{
    uint32_t word = 0;
    for (uint64_t i = w * per; i < n && i < (w + 1) * per; i++)
        word |= ref[i] << ((i % per) * (uint32_t)bits);
    return word;
}

static void check_layout(const ps_chunk_t *c, const uint32_t *ref, uint64_t n)
{
    ck_assert_uint_eq(c->n, n);
    for (uint64_t i = 0; i < n; i++)
        ck_assert_msg(ps_chunk_sym(c, i) == ref[i], "symbol %llu: got %u, pushed %u",
                      (unsigned long long)i, ps_chunk_sym(c, i), ref[i]);
    uint64_t words = (n + c->per_word - 1) / c->per_word;
    ck_assert_uint_eq(ps_chunk_text_bytes(c), words * sizeof(uint32_t));
    for (uint64_t w = 0; w < words; w++) {
        uint32_t want = expected_word(ref, n, w, c->bits, c->per_word);
        ck_assert_msg(c->text[w] == want, "word %llu is %08x, layout says %08x (n=%llu)",
                      (unsigned long long)w, c->text[w], want, (unsigned long long)n);
    }
}

static void roundtrip(ps_alpha_t a)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, tu_seed() ^ (a == PS_DNA ? 0x11u : 0x22u));
    const uint64_t cap = 1000;
    ps_chunk_t c;
    init_chunk(&c, a, cap, 8);
    ck_assert_int_eq(c.bits, a == PS_DNA ? 2 : 5);
    ck_assert_uint_eq(c.per_word, a == PS_DNA ? 16u : 6u);
    ck_assert_uint_eq(c.per_word, PS_PER_WORD(c.bits));
    ck_assert_uint_eq(c.cap, cap);
    ck_assert_uint_eq(c.n, 0);
    uint32_t sigma = (uint32_t)ps_alpha_sigma(a);
    uint32_t *ref = malloc(cap * sizeof *ref);
    ck_assert_ptr_nonnull(ref);

    /* Every length around word boundaries, then random ones, always reusing
     * the same chunk so that stale bits from a longer fill would show. */
    uint64_t lens[64];
    int nl = 0;
    for (uint64_t l = 0; l <= 40; l++) lens[nl++] = l;
    lens[nl++] = cap;
    lens[nl++] = cap - 1;
    lens[nl++] = 1;
    while (nl < 64) lens[nl++] = tu_rng_range(&rng, 0, cap);
    for (int t = 0; t < nl; t++) {
        ps_chunk_clear(&c);
        ck_assert_uint_eq(c.n, 0);
        ck_assert_uint_eq(c.n_ctx, 0);
        ck_assert_uint_eq(c.n_restart, 0);
        ck_assert_uint_eq(c.n_rec, 0);
        int mode = t % 4; /* random, all max symbol, all zero, ascending */
        for (uint64_t i = 0; i < lens[t]; i++) {
            uint32_t s = mode == 0   ? (uint32_t)tu_rng_below(&rng, sigma)
                         : mode == 1 ? sigma - 1
                         : mode == 2 ? 0
                                     : (uint32_t)(i % sigma);
            ref[i] = s;
            ps_chunk_push(&c, s);
        }
        check_layout(&c, ref, lens[t]);
    }
    free(ref);
    ps_chunk_free(&c, NULL);
}

START_TEST(test_roundtrip_dna) { roundtrip(PS_DNA); }
END_TEST

START_TEST(test_roundtrip_protein) { roundtrip(PS_PROTEIN); }
END_TEST

/* A hand-worked layout, so the documentation and the code cannot drift
 * together: DNA A C G T ... in word 0 at bits 0,2,4,6; protein at 0,5,10. */
START_TEST(test_layout_by_hand)
{
    ps_chunk_t c;
    init_chunk(&c, PS_DNA, 64, 4);
    const uint32_t dna[17] = {0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 1};
    for (int i = 0; i < 17; i++) ps_chunk_push(&c, dna[i]);
    /* word 0: 0 | 1<<2 | 2<<4 | 3<<6 | 3<<8 ... | 3<<28 | 2<<30 */
    uint32_t w0 = (1u << 2) | (2u << 4) | (2u << 30);
    for (int i = 3; i < 15; i++) w0 |= 3u << (2 * i);
    ck_assert_uint_eq(c.text[0], w0);
    ck_assert_uint_eq(c.text[1], 1u); /* symbol 16 = C at bit 0 of word 1 */
    ck_assert_uint_eq(ps_chunk_text_bytes(&c), 8);
    ps_chunk_free(&c, NULL);

    init_chunk(&c, PS_PROTEIN, 64, 4);
    const uint32_t prot[7] = {26, 1, 2, 3, 4, 25, 7};
    for (int i = 0; i < 7; i++) ps_chunk_push(&c, prot[i]);
    uint32_t p0 = 26u | (1u << 5) | (2u << 10) | (3u << 15) | (4u << 20) | (25u << 25);
    ck_assert_uint_eq(c.text[0], p0);
    ck_assert_uint_eq(c.text[0] >> 30, 0); /* top 2 bits unused */
    ck_assert_uint_eq(c.text[1], 7u);
    ck_assert_uint_eq(ps_chunk_text_bytes(&c), 8);
    ps_chunk_free(&c, NULL);
}
END_TEST

START_TEST(test_restart_rules)
{
    ps_chunk_t c;
    init_chunk(&c, PS_DNA, 100, 3);
    ck_assert_uint_eq(c.cap_restart, 3);
    /* No restart at position 0: the scan starts at the root anyway. */
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    ck_assert_uint_eq(c.n_restart, 0);

    for (int i = 0; i < 3; i++) ps_chunk_push(&c, 1);
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    ck_assert_uint_eq(c.n_restart, 1);
    ck_assert_uint_eq(c.restart[0], 3);
    /* Idempotent at one position. */
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    ck_assert_uint_eq(c.n_restart, 1);

    ps_chunk_push(&c, 2);
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    ps_chunk_push(&c, 2);
    ps_chunk_push(&c, 2);
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    ck_assert_uint_eq(c.n_restart, 3);
    ck_assert_uint_eq(c.restart[1], 4);
    ck_assert_uint_eq(c.restart[2], 6);
    /* Full: the same position is still fine, a new one is refused. */
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    ck_assert_uint_eq(c.n_restart, 3);
    ps_chunk_push(&c, 0);
    ck_assert_int_eq(ps_chunk_restart(&c), -1);
    ck_assert_uint_eq(c.n_restart, 3);
    ck_assert_uint_eq(c.restart[2], 6);
    /* The text is untouched by restarts. */
    const uint32_t want[7] = {1, 1, 1, 2, 2, 2, 0};
    check_layout(&c, want, 7);

    /* Clearing empties the list; position 0 again takes no restart. */
    ps_chunk_clear(&c);
    ck_assert_uint_eq(c.n_restart, 0);
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    ck_assert_uint_eq(c.n_restart, 0);
    ps_chunk_push(&c, 3);
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    ck_assert_uint_eq(c.n_restart, 1);
    ck_assert_uint_eq(c.restart[0], 1);
    ps_chunk_free(&c, NULL);
}
END_TEST

/* Restarts stay strictly increasing whatever the pattern of calls. */
START_TEST(test_restart_random)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, tu_seed() ^ 0x33u);
    ps_chunk_t c;
    init_chunk(&c, PS_PROTEIN, 5000, 64);
    for (int round = 0; round < 50; round++) {
        ps_chunk_clear(&c);
        uint32_t want[64];
        uint32_t nwant = 0;
        int full = 0;
        while (c.n < c.cap) {
            if (tu_rng_chance(&rng, 30)) {
                int rc = ps_chunk_restart(&c);
                int dup = c.n == 0 || (nwant && want[nwant - 1] == c.n);
                if (dup) {
                    ck_assert_int_eq(rc, 0);
                } else if (nwant == 64) {
                    ck_assert_int_eq(rc, -1);
                    full = 1;
                } else {
                    ck_assert_int_eq(rc, 0);
                    want[nwant++] = (uint32_t)c.n;
                }
            }
            if (full) break;
            uint64_t run = tu_rng_range(&rng, 0, 40);
            for (uint64_t i = 0; i < run && c.n < c.cap; i++)
                ps_chunk_push(&c, (uint32_t)tu_rng_below(&rng, PS_PROTEIN_SIGMA));
        }
        ck_assert_uint_eq(c.n_restart, nwant);
        for (uint32_t i = 0; i < nwant; i++) {
            ck_assert_uint_eq(c.restart[i], want[i]);
            if (i) ck_assert_uint_gt(c.restart[i], c.restart[i - 1]);
            ck_assert_uint_gt(c.restart[i], 0);
        }
    }
    ps_chunk_free(&c, NULL);
}
END_TEST

static const char *rec_name(const ps_chunk_t *c, uint32_t j) { return c->rec_name + c->name_off[j]; }

START_TEST(test_record_listing)
{
    ps_chunk_t c;
    init_chunk(&c, PS_DNA, 100, 4);
    /* The first record at position 0 takes no restart. */
    ck_assert_int_eq(ps_chunk_record(&c, 0, "chr1", 4), 0);
    ck_assert_uint_eq(c.n_rec, 1);
    ck_assert_uint_eq(c.rec_pos[0], 0);
    ck_assert_uint_eq(c.rec_id[0], 0);
    ck_assert_str_eq(rec_name(&c, 0), "chr1");
    ck_assert_uint_eq(c.n_restart, 0);

    for (int i = 0; i < 5; i++) ps_chunk_push(&c, 2);
    /* The name is name[0..name_len): the rest of the buffer is not copied. */
    const char *hdr = "chrX some description";
    ck_assert_int_eq(ps_chunk_record(&c, 7, hdr, 4), 0);
    ck_assert_uint_eq(c.n_rec, 2);
    ck_assert_uint_eq(c.rec_pos[1], 5);
    ck_assert_uint_eq(c.rec_id[1], 7);
    ck_assert_str_eq(rec_name(&c, 1), "chrX");
    ck_assert_str_eq(rec_name(&c, 0), "chr1");
    /* A record start after position 0 is a restart too. */
    ck_assert_uint_eq(c.n_restart, 1);
    ck_assert_uint_eq(c.restart[0], 5);
    /* A restart asked for at the same position adds nothing. */
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    ck_assert_uint_eq(c.n_restart, 1);

    /* An N run just before a record: the record's restart coincides. */
    ps_chunk_push(&c, 1);
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    ck_assert_int_eq(ps_chunk_record(&c, 8, "", 0), 0);
    ck_assert_uint_eq(c.n_restart, 2);
    ck_assert_uint_eq(c.restart[1], 6);
    ck_assert_str_eq(rec_name(&c, 2), "");
    ck_assert_uint_eq(c.rec_pos[2], 6);

    /* Restart list full: a record at a new position is refused, unchanged. */
    ps_chunk_push(&c, 1);
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    ps_chunk_push(&c, 1);
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    ck_assert_uint_eq(c.n_restart, 4);
    ps_chunk_push(&c, 1);
    ck_assert_int_eq(ps_chunk_record(&c, 9, "late", 4), -1);
    ck_assert_uint_eq(c.n_rec, 3);
    ck_assert_uint_eq(c.n_restart, 4);

    /* Record list full (restarts not): refused. */
    ps_chunk_clear(&c);
    ck_assert_uint_eq(c.n_rec, 0);
    for (uint32_t j = 0; j < 4; j++) {
        char nm[8];
        snprintf(nm, sizeof nm, "r%u", j);
        ck_assert_int_eq(ps_chunk_record(&c, 100 + j, nm, (uint32_t)strlen(nm)), 0);
        ps_chunk_push(&c, j);
    }
    ck_assert_uint_eq(c.n_rec, 4);
    ck_assert_uint_eq(c.n_restart, 3);
    ck_assert_int_eq(ps_chunk_record(&c, 104, "r4", 2), -1);
    ck_assert_uint_eq(c.n_rec, 4);
    for (uint32_t j = 0; j < 4; j++) {
        char nm[8];
        snprintf(nm, sizeof nm, "r%u", j);
        ck_assert_str_eq(rec_name(&c, j), nm);
        ck_assert_uint_eq(c.rec_id[j], 100 + j);
        ck_assert_uint_eq(c.rec_pos[j], j);
        if (j) ck_assert_uint_eq(c.restart[j - 1], j);
    }
    ps_chunk_free(&c, NULL);
}
END_TEST

/* Long names fill the name buffer: records are refused cleanly (never an
 * overflow), and one oversized name alone still lists the record. */
START_TEST(test_record_names_full)
{
    ps_chunk_t c;
    init_chunk(&c, PS_DNA, 100000, 1000);
    char name[300];
    memset(name, 'n', sizeof name);
    uint32_t listed = 0;
    for (;;) {
        snprintf(name, 16, "%u", listed);
        name[strlen(name)] = 'n';
        int rc = ps_chunk_record(&c, listed, name, sizeof name);
        if (rc != 0) {
            ck_assert_int_eq(rc, -1);
            break;
        }
        listed++;
        ps_chunk_push(&c, 0);
        if (listed == c.cap_rec) break;
    }
    ck_assert_uint_eq(c.n_rec, listed);
    ck_assert_uint_gt(listed, 0);
    for (uint32_t j = 0; j < listed; j++) {
        const char *nm = rec_name(&c, j);
        ck_assert_uint_eq(strlen(nm), sizeof name);
        char num[16];
        snprintf(num, sizeof num, "%u", j);
        ck_assert_msg(!strncmp(nm, num, strlen(num)), "record %u name mixed up", j);
    }

    ps_chunk_clear(&c);
    size_t big = 1u << 20;
    char *huge = malloc(big);
    ck_assert_ptr_nonnull(huge);
    for (size_t i = 0; i < big; i++) huge[i] = (char)('a' + i % 26);
    ck_assert_int_eq(ps_chunk_record(&c, 3, huge, (uint32_t)big), 0);
    ck_assert_uint_eq(c.n_rec, 1);
    const char *nm = rec_name(&c, 0);
    size_t got = strlen(nm);
    ck_assert_uint_le(got, big);
    ck_assert_int_eq(memcmp(nm, huge, got), 0);
    free(huge);
    ps_chunk_free(&c, NULL);
}
END_TEST

static size_t hook_allocs, hook_frees;

static void *hook_alloc(void *ctx, size_t bytes)
{
    ck_assert_ptr_eq(ctx, &hook_allocs);
    hook_allocs++;
    return malloc(bytes);
}

static void hook_release(void *ctx, void *p)
{
    ck_assert_ptr_eq(ctx, &hook_allocs);
    hook_frees++;
    free(p);
}

START_TEST(test_allocator_and_errors)
{
    ps_allocator_t al = {hook_alloc, hook_release, &hook_allocs};
    ps_chunk_t c;
    ps_err_t err = {0};
    hook_allocs = hook_frees = 0;
    ck_assert_int_eq(ps_chunk_init(&c, PS_PROTEIN, 4097, 5, &al, &err), PS_OK);
    ck_assert_uint_gt(hook_allocs, 0);
    /* The whole capacity is usable. */
    for (uint64_t i = 0; i < c.cap; i++) ps_chunk_push(&c, (uint32_t)(i % PS_PROTEIN_SIGMA));
    for (uint64_t i = 0; i < c.cap; i++) ck_assert_uint_eq(ps_chunk_sym(&c, i), i % PS_PROTEIN_SIGMA);
    ps_chunk_free(&c, &al);
    ck_assert_uint_eq(hook_allocs, hook_frees);

    ck_assert_int_lt(ps_chunk_init(&c, PS_DNA, 0, 4, NULL, &err), 0);
    ck_assert_int_lt(ps_chunk_init(&c, PS_DNA, 100, 0, NULL, &err), 0);
    ck_assert_int_lt(ps_chunk_init(&c, PS_DNA, (uint64_t)1 << 33, 4, NULL, &err), 0);
    ck_assert_msg(err.msg[0] != '\0', "a failed init says why");
}
END_TEST

Suite *suite_pack(void)
{
    Suite *s = suite_create("pack");
    TCase *tc = tcase_create("pack");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_roundtrip_dna);
    tcase_add_test(tc, test_roundtrip_protein);
    tcase_add_test(tc, test_layout_by_hand);
    tcase_add_test(tc, test_restart_rules);
    tcase_add_test(tc, test_restart_random);
    tcase_add_test(tc, test_record_listing);
    tcase_add_test(tc, test_record_names_full);
    tcase_add_test(tc, test_allocator_and_errors);
    suite_add_tcase(s, tc);
    return s;
}
