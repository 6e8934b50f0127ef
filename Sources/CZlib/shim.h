#ifndef URNA_CZLIB_SHIM_H
#define URNA_CZLIB_SHIM_H
#include <zlib.h>
/// inflateInit2 is a macro: Swift cannot see it.
static inline int urna_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -MAX_WBITS);
}
/// deflateInit2 is a macro too: a raw deflate stream (no zlib header), as zip members hold.
static inline int urna_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}
#endif
