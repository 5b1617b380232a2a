// CurlLibrary: see curl_library.h.
#include "priority_budget/curl_library.h"

#include <dlfcn.h>

#include <string>

namespace budget_prio {

namespace {

// Looks up `name` in `handle` into *fn; false (and *error set) if missing.
template <typename Fn>
bool Resolve(void* handle, const char* soname, const char* name, Fn* fn, std::string* error) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (*fn == nullptr) *error = std::string(soname) + ": no function " + name;
  return *fn != nullptr;
}

struct Loaded {
  CurlLibrary library;
  std::string error;  // empty if loaded
};

}  // namespace

bool CurlLibrary::Open(const char* soname, CurlLibrary* out, std::string* error) {
  // RTLD_LOCAL: its symbols stay out of slurmctld's global namespace. The
  // handle is never closed: unloading libcurl (and its TLS library) is
  // not safe.
  void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    *error = std::string("cannot load ") + soname + " (needed for http:// and https:// BudgetTree URLs): " +
             (why ? why : "unknown error");
    return false;
  }
  CurlLibrary c;
  CURLcode (*global_init)(long) = nullptr;
  if (!Resolve(handle, soname, "curl_global_init", &global_init, error) ||
      !Resolve(handle, soname, "curl_easy_init", &c.easy_init, error) ||
      !Resolve(handle, soname, "curl_easy_setopt", &c.easy_setopt, error) ||
      !Resolve(handle, soname, "curl_easy_perform", &c.easy_perform, error) ||
      !Resolve(handle, soname, "curl_easy_getinfo", &c.easy_getinfo, error) ||
      !Resolve(handle, soname, "curl_easy_cleanup", &c.easy_cleanup, error) ||
      !Resolve(handle, soname, "curl_easy_strerror", &c.easy_strerror, error)) {
    return false;
  }
  if (CURLcode rc = global_init(CURL_GLOBAL_DEFAULT); rc != CURLE_OK) {
    *error = std::string(soname) + ": curl_global_init failed: " + c.easy_strerror(rc);
    return false;
  }
  *out = c;
  return true;
}

const CurlLibrary* CurlLibrary::Get(std::string* error) {
  // Loaded once, by the first caller (a thread-safe static), and kept for
  // the life of the process, as it was when linked.
  static const Loaded* const loaded = [] {
    auto* l = new Loaded;
    Open(kSoname, &l->library, &l->error);
    return l;
  }();
  if (!loaded->error.empty()) {
    *error = loaded->error;
    return nullptr;
  }
  return &loaded->library;
}

}  // namespace budget_prio
