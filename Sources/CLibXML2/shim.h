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
#endif
