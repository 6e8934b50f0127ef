#ifndef URNA_CZLIB_SHIM_H
#define URNA_CZLIB_SHIM_H
#include <zlib.h>
/// inflateInit2 is a macro: Swift cannot see it.
static inline int urna_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -MAX_WBITS);
}
#endif
