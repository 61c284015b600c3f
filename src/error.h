/* error.h - error codes and the one error record that travels up to main().
 *
 * Every fallible function returns PS_OK (0) or a negative PS_E_* code and, on
 * failure, fills a ps_err_t with one human-readable line (no trailing newline)
 * that names the file and, where known, the line or record. Only main() prints. */
#ifndef PS_ERROR_H
#define PS_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum {
    PS_OK = 0,
    PS_E_USAGE = -1,    /* bad command line */
    PS_E_IO = -2,       /* open/read/write failure, truncated compressed input */
    PS_E_FORMAT = -3,   /* malformed probes or sequence input */
    PS_E_NOMEM = -4,    /* allocation failure */
    PS_E_GPU = -5,      /* CUDA runtime or kernel failure */
    PS_E_INTERNAL = -6  /* broken invariant; a bug */
};

typedef struct {
    int code;
    char msg[1024];
} ps_err_t;

/* Formats the message into e (if e is not NULL) and returns code, so that
 * callers can write `return ps_fail(err, PS_E_IO, "%s: ...", path);`. */
int ps_fail(ps_err_t *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif
