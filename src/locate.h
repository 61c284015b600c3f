/* locate.h - the `locate` subcommand: where every probe lies, as BED.
 *
 * ps_locate_main takes the subcommand's arguments (argv[0] is "locate") and
 * returns 0 when the sites were written, 1 when it only printed help or the
 * version, or a negative PS_E_* code with err filled (nothing half-written
 * is left behind; cl, if not NULL, removes temporary files on a signal). */
#ifndef PS_LOCATE_H
#define PS_LOCATE_H

#include "cleanup.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

int ps_locate_main(int argc, char **argv, ps_cleanup_t *cl, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
