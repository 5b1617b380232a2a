// CurlLibrary: libcurl, loaded with dlopen the first time a BudgetTree URL
// is fetched. Linking it would map libcurl and the 28 libraries it brings
// that slurmctld does not otherwise load (TLS, Kerberos, LDAP, SSH,
// HTTP/2...) into slurmctld at every start: about 6 MB resident and 145
// mappings, for sites whose tree is a file and never fetch a URL.
//
// Thread safety: Get() may be called from any thread; the library is
// loaded, and curl_global_init() run, once.
#ifndef SLURM_BUDGET_PRIORITY_BUDGET_CURL_LIBRARY_H_
#define SLURM_BUDGET_PRIORITY_BUDGET_CURL_LIBRARY_H_

#include <curl/curl.h>

#include <string>

namespace budget_prio {

struct CurlLibrary {
  // The soname loaded: libcurl's ABI 4, the one the headers describe.
  static constexpr const char* kSoname = "libcurl.so.4";

  CURL* (*easy_init)(void) = nullptr;
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...) = nullptr;
  CURLcode (*easy_perform)(CURL*) = nullptr;
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...) = nullptr;
  void (*easy_cleanup)(CURL*) = nullptr;
  const char* (*easy_strerror)(CURLcode) = nullptr;

  // The loaded library, or null with *error saying why (dlopen's or
  // dlsym's message, or curl_global_init's failure). A failure is
  // remembered: the library is not looked for again.
  static const CurlLibrary* Get(std::string* error);

  // Loads `soname` (Get()'s work, uncached; for tests). False with *error
  // set if it cannot be loaded or lacks a function. The library stays
  // loaded either way.
  static bool Open(const char* soname, CurlLibrary* out, std::string* error);
};

}  // namespace budget_prio

#endif  // SLURM_BUDGET_PRIORITY_BUDGET_CURL_LIBRARY_H_
