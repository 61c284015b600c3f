#include "gunzip.h"

#include <stdlib.h>

#ifdef PS_HAVE_ISAL

#include <isa-l/igzip_lib.h>

#define IN_BYTES (1u << 20)

struct ps_gunzip {
    hFILE *hf;
    const char *path;
    struct inflate_state st;
    unsigned char *in;
    int64_t read_in;   /* compressed bytes read from hf */
    int in_eof;        /* hf is used up */
    int member_done;   /* the current member ended; the next may follow */
    int done;          /* the stream ended cleanly */
};

int ps_gunzip_available(void) { return 1; }

int ps_gunzip_open(ps_gunzip_t **out, hFILE *hf, const char *path, ps_err_t *err)
{
    *out = NULL;
    ps_gunzip_t *g = calloc(1, sizeof *g);
    if (!g || !(g->in = malloc(IN_BYTES))) {
        free(g);
        hclose_abruptly(hf);
        return ps_fail(err, PS_E_NOMEM, "%s: out of memory for the gzip reader", path);
    }
    g->hf = hf;
    g->path = path;
    isal_inflate_init(&g->st);
    g->st.crc_flag = ISAL_GZIP;
    *out = g;
    return PS_OK;
}

/* Fills the input buffer when empty. Returns 0, or -1 on a read error. */
static int refill(ps_gunzip_t *g)
{
    if (g->st.avail_in || g->in_eof) return 0;
    ssize_t got = hread(g->hf, g->in, IN_BYTES);
    if (got < 0) return -1;
    if (got == 0) g->in_eof = 1;
    g->read_in += got;
    g->st.next_in = g->in;
    g->st.avail_in = (uint32_t)got;
    return 0;
}

ssize_t ps_gunzip_read(ps_gunzip_t *g, void *dst, size_t len, const char *near, ps_err_t *err)
{
    if (len > (1u << 30)) len = 1u << 30;
    g->st.next_out = dst;
    g->st.avail_out = (uint32_t)len;
    while (g->st.avail_out && !g->done) {
        if (refill(g) < 0) return ps_fail(err, PS_E_IO, "%s: read error", g->path);
        if (g->member_done) {
            /* Between members: the end, or the magic of the next one. */
            if (!g->st.avail_in) {
                if (g->in_eof) g->done = 1;
                continue;
            }
            if (g->st.next_in[0] != 0x1f)
                return ps_fail(err, PS_E_IO, "%s: read error: corrupt or truncated compressed data%s", g->path, near);
            isal_inflate_reset(&g->st);
            g->st.crc_flag = ISAL_GZIP;
            g->member_done = 0;
        }
        if (!g->st.avail_in && g->in_eof)
            return ps_fail(err, PS_E_IO, "%s: read error: corrupt or truncated compressed data%s", g->path, near);
        int rc = isal_inflate(&g->st);
        if (rc != ISAL_DECOMP_OK)
            return ps_fail(err, PS_E_IO, "%s: read error: corrupt or truncated compressed data%s", g->path, near);
        if (g->st.block_state == ISAL_BLOCK_FINISH) g->member_done = 1;
    }
    return (ssize_t)(len - g->st.avail_out);
}

int64_t ps_gunzip_consumed(const ps_gunzip_t *g) { return g->read_in - (int64_t)g->st.avail_in; }

void ps_gunzip_close(ps_gunzip_t *g)
{
    if (!g) return;
    if (g->hf) hclose_abruptly(g->hf); /* reading only: nothing to flush */
    free(g->in);
    free(g);
}

#else

struct ps_gunzip {
    int unused;
};

int ps_gunzip_available(void) { return 0; }

int ps_gunzip_open(ps_gunzip_t **out, hFILE *hf, const char *path, ps_err_t *err)
{
    *out = NULL;
    hclose_abruptly(hf);
    return ps_fail(err, PS_E_INTERNAL, "%s: this probescan was built without ISA-L", path);
}

ssize_t ps_gunzip_read(ps_gunzip_t *g, void *dst, size_t len, const char *near, ps_err_t *err)
{
    (void)g, (void)dst, (void)len, (void)near;
    return ps_fail(err, PS_E_INTERNAL, "built without ISA-L");
}

int64_t ps_gunzip_consumed(const ps_gunzip_t *g)
{
    (void)g;
    return -1;
}

void ps_gunzip_close(ps_gunzip_t *g) { (void)g; }

#endif
