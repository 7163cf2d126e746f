#ifndef FOOTSTEPD_CALSA_SHIM_H
#define FOOTSTEPD_CALSA_SHIM_H
#include <alsa/asoundlib.h>

/* ALSA's error handler type is variadic, so Swift cannot provide one. This
   installs a no-op handler: footstepd reports ALSA errors itself, with the
   device name, instead of ALSA's multi-line stderr messages. */
static void calsa_silent_error_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void calsa_silence_errors(void) {
    snd_lib_error_set_handler(calsa_silent_error_handler);
}
#endif
