#ifndef URNA_CCURL_SHIM_H
#define URNA_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic: Swift cannot call them, so each argument type
// gets a typed wrapper.

static inline CURLcode urna_curl_setopt_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode urna_curl_setopt_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode urna_curl_setopt_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode urna_curl_setopt_offset(CURL *curl, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode urna_curl_setopt_list(CURL *curl, CURLoption option, struct curl_slist *list) {
    return curl_easy_setopt(curl, option, list);
}

typedef size_t (*urna_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*urna_curl_progress_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                           curl_off_t upload_total, curl_off_t uploaded);

static inline CURLcode urna_curl_setopt_write_function(CURL *curl, urna_curl_data_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode urna_curl_setopt_header_function(CURL *curl, urna_curl_data_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, callback);
}
static inline CURLcode urna_curl_setopt_progress_function(CURL *curl, urna_curl_progress_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline CURLcode urna_curl_getinfo_long(CURL *curl, CURLINFO info, long *value) {
    return curl_easy_getinfo(curl, info, value);
}
#endif
