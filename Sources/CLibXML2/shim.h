#ifndef URNA_CLIBXML2_SHIM_H
#define URNA_CLIBXML2_SHIM_H
// libxml2's headers pull ICU types that clash with the ones Foundation ships; hide them first.
#define UConverter urna_hidden_UConverter
#define UChar urna_hidden_UChar
#include <libxml/xmlversion.h>
// Without ICU support declared, encoding.h does not pull ICU converter types at all.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#undef UConverter
#undef UChar

/// libxml2's generic error channel is variadic (Swift cannot implement one) and writes to stderr by
/// default ("xmlParseChunk: encoder error"). Urna reports parser failures itself: this one drops them.
static void urna_xml_drop_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

/// Sends libxml2's generic errors of the calling thread (its error state is per thread) nowhere.
static inline void urna_xml_silence_generic_errors(void) {
    xmlSetGenericErrorFunc(NULL, urna_xml_drop_generic_error);
}
#endif
