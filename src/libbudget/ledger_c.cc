// The C API of the ledger, its file and the service metrics (ledger_c.h).
// Each entry point catches everything: no exception may unwind into a C
// caller (slurmctld).
#include "libbudget/ledger_c.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "libbudget/ledger.h"
#include "libbudget/ledger_file.h"
#include "libbudget/metrics.h"

struct budget_ledger_t {
  explicit budget_ledger_t(const budget::Ledger::Options& options) : ledger(options) {}
  budget::Ledger ledger;
};

namespace {

using budget::Ledger;
using budget::Status;

char* CopyString(const std::string& s) {
  char* copy = static_cast<char*>(std::malloc(s.size() + 1));
  if (copy != nullptr) std::memcpy(copy, s.c_str(), s.size() + 1);
  return copy;
}

void SaveError(char** errptr, const std::string& message) {
  if (errptr == nullptr) return;
  std::free(*errptr);
  *errptr = CopyString(message);
}

// Runs `body`, turning any exception into an error message naming the
// entry point, and returning `on_error`.
template <typename T, typename Body>
T Guarded(const char* function, char** errptr, T on_error, Body body) {
  try {
    return body();
  } catch (const std::exception& e) {
    SaveError(errptr, std::string(function) + ": " + e.what());
  } catch (...) {
    SaveError(errptr, std::string(function) + ": unknown error");
  }
  return on_error;
}

// Checks the handle and the series; false (with *errptr set) if unusable.
bool CheckLedger(const char* function, const budget_ledger_t* ledger, char** errptr) {
  if (ledger == nullptr) {
    SaveError(errptr, std::string(function) + ": ledger is NULL");
    return false;
  }
  return true;
}

bool CheckSeries(const char* function, int series, char** errptr) {
  if (series != BUDGET_SERIES_ALLOCATED && series != BUDGET_SERIES_UNALLOCATED &&
      series != BUDGET_SERIES_DEMAND) {
    SaveError(errptr, std::string(function) + ": unknown series " + std::to_string(series));
    return false;
  }
  return true;
}

bool CheckText(const char* function, const char* what, const char* text, char** errptr) {
  if (text == nullptr) {
    SaveError(errptr, std::string(function) + ": " + what + " is NULL");
    return false;
  }
  return true;
}

// REQUIRES: CheckSeries(series).
Ledger::Series ToSeries(int series) { return static_cast<Ledger::Series>(series); }

Ledger::Options ToOptions(const budget_ledger_options_t& o) {
  Ledger::Options options;
  options.window = o.window;
  options.bucket_width = o.bucket_width;
  options.report_bucket_width = o.report_bucket_width;
  return options;
}

}  // namespace

extern "C" {

void budget_ledger_default_options(budget_ledger_options_t* options) {
  if (options == nullptr) return;
  const Ledger::Options defaults;
  options->window = defaults.window;
  options->bucket_width = defaults.bucket_width;
  options->report_bucket_width = defaults.report_bucket_width;
}

unsigned char budget_ledger_check_options(const budget_ledger_options_t* options,
                                          char** errptr) {
  static const char kFn[] = "budget_ledger_check_options";
  return Guarded(kFn, errptr, static_cast<unsigned char>(0), [&]() -> unsigned char {
    if (options == nullptr) {
      SaveError(errptr, std::string(kFn) + ": options is NULL");
      return 0;
    }
    Status s = Ledger::CheckOptions(ToOptions(*options));
    if (!s.ok()) {
      SaveError(errptr, s.message());
      return 0;
    }
    return 1;
  });
}

budget_ledger_t* budget_ledger_create(const budget_ledger_options_t* options, char** errptr) {
  static const char kFn[] = "budget_ledger_create";
  return Guarded(kFn, errptr, static_cast<budget_ledger_t*>(nullptr),
                 [&]() -> budget_ledger_t* {
                   Ledger::Options o;
                   if (options != nullptr) o = ToOptions(*options);
                   Status s = Ledger::CheckOptions(o);
                   if (!s.ok()) {
                     SaveError(errptr, s.message());
                     return nullptr;
                   }
                   return new budget_ledger_t(o);
                 });
}

void budget_ledger_destroy(budget_ledger_t* ledger) { delete ledger; }

void budget_ledger_options(const budget_ledger_t* ledger, budget_ledger_options_t* options) {
  if (options == nullptr) return;
  if (ledger == nullptr) {
    budget_ledger_default_options(options);
    return;
  }
  const Ledger::Options& o = ledger->ledger.options();
  options->window = o.window;
  options->bucket_width = o.bucket_width;
  options->report_bucket_width = o.report_bucket_width;
}

void budget_ledger_charge(budget_ledger_t* ledger, const char* path, int series,
                          int64_t from, int64_t to, double gpus, char** errptr) {
  static const char kFn[] = "budget_ledger_charge";
  Guarded(kFn, errptr, 0, [&]() {
    if (CheckLedger(kFn, ledger, errptr) && CheckText(kFn, "path", path, errptr) &&
        CheckSeries(kFn, series, errptr)) {
      ledger->ledger.Charge(path, ToSeries(series), from, to, gpus);
    }
    return 0;
  });
}

void budget_ledger_charge_running_job(budget_ledger_t* ledger, uint32_t job_id,
                                      const char* path, int occupancy,
                                      int64_t start, int64_t now, double gpus,
                                      char** errptr) {
  static const char kFn[] = "budget_ledger_charge_running_job";
  Guarded(kFn, errptr, 0, [&]() {
    if (CheckLedger(kFn, ledger, errptr) && CheckText(kFn, "path", path, errptr) &&
        CheckSeries(kFn, occupancy, errptr)) {
      ledger->ledger.ChargeRunningJob(job_id, path, ToSeries(occupancy), start, now, gpus);
    }
    return 0;
  });
}

double budget_ledger_window_usage(budget_ledger_t* ledger, const char* path,
                                  int series, int64_t now, char** errptr) {
  static const char kFn[] = "budget_ledger_window_usage";
  return Guarded(kFn, errptr, 0.0, [&]() {
    if (!CheckLedger(kFn, ledger, errptr) || !CheckText(kFn, "path", path, errptr) ||
        !CheckSeries(kFn, series, errptr)) {
      return 0.0;
    }
    return ledger->ledger.WindowUsage(path, ToSeries(series), now);
  });
}

void budget_ledger_window_usages(budget_ledger_t* ledger, const char* const* paths,
                                 size_t count, int series, int64_t now,
                                 double* usage, char** errptr) {
  static const char kFn[] = "budget_ledger_window_usages";
  Guarded(kFn, errptr, 0, [&]() {
    if (!CheckLedger(kFn, ledger, errptr) || !CheckSeries(kFn, series, errptr)) return 0;
    if (count > 0 && (paths == nullptr || usage == nullptr)) {
      SaveError(errptr, std::string(kFn) + ": paths or usage is NULL");
      return 0;
    }
    for (size_t i = 0; i < count; ++i) {
      if (paths[i] == nullptr) {
        SaveError(errptr, std::string(kFn) + ": paths[" + std::to_string(i) + "] is NULL");
        return 0;
      }
    }
    for (size_t i = 0; i < count; ++i) {
      usage[i] = ledger->ledger.WindowUsage(paths[i], ToSeries(series), now);
    }
    return 0;
  });
}

double* budget_ledger_history(const budget_ledger_t* ledger, const char* path,
                              int series, int64_t from, int64_t to,
                              int64_t resolution, int64_t* start, int64_t* width,
                              size_t* count, char** errptr) {
  static const char kFn[] = "budget_ledger_history";
  return Guarded(kFn, errptr, static_cast<double*>(nullptr), [&]() -> double* {
    if (!CheckLedger(kFn, ledger, errptr) || !CheckText(kFn, "path", path, errptr) ||
        !CheckSeries(kFn, series, errptr)) {
      return nullptr;
    }
    if (start == nullptr || width == nullptr || count == nullptr) {
      SaveError(errptr, std::string(kFn) + ": start, width or count is NULL");
      return nullptr;
    }
    Ledger::History h = ledger->ledger.SeriesHistory(path, ToSeries(series), from, to, resolution);
    double* values = nullptr;
    if (!h.gpu_seconds.empty()) {
      values = static_cast<double*>(std::malloc(h.gpu_seconds.size() * sizeof(double)));
      if (values == nullptr) {
        SaveError(errptr, std::string(kFn) + ": out of memory");
        return nullptr;
      }
      std::copy(h.gpu_seconds.begin(), h.gpu_seconds.end(), values);
    }
    *start = h.start;
    *width = h.width;
    *count = h.gpu_seconds.size();
    return values;
  });
}

size_t budget_ledger_path_count(const budget_ledger_t* ledger) {
  return ledger == nullptr ? 0 : ledger->ledger.path_count();
}

unsigned char budget_ledger_forget_path(budget_ledger_t* ledger, const char* path) {
  if (ledger == nullptr || path == nullptr) return 0;
  return Guarded("budget_ledger_forget_path", nullptr, static_cast<unsigned char>(0),
                 [&]() -> unsigned char { return ledger->ledger.ForgetPath(path) ? 1 : 0; });
}

int64_t budget_ledger_charged_until(const budget_ledger_t* ledger, uint32_t job_id) {
  return ledger == nullptr ? 0 : ledger->ledger.ChargedUntil(job_id);
}

void budget_ledger_set_charged_until(budget_ledger_t* ledger, uint32_t job_id, int64_t t) {
  if (ledger == nullptr) return;
  Guarded("budget_ledger_set_charged_until", nullptr, 0, [&]() {
    ledger->ledger.SetChargedUntil(job_id, t);
    return 0;
  });
}

void budget_ledger_forget_job(budget_ledger_t* ledger, uint32_t job_id) {
  if (ledger != nullptr) ledger->ledger.ForgetJob(job_id);
}

size_t budget_ledger_jobs(const budget_ledger_t* ledger, uint32_t* ids, size_t capacity) {
  if (ledger == nullptr) return 0;
  return Guarded("budget_ledger_jobs", nullptr, static_cast<size_t>(0), [&]() -> size_t {
    if (ids == nullptr) return ledger->ledger.job_count();
    auto cursors = ledger->ledger.JobCursors();
    std::sort(cursors.begin(), cursors.end());
    const size_t n = std::min(capacity, cursors.size());
    for (size_t i = 0; i < n; ++i) ids[i] = cursors[i].first;
    return cursors.size();
  });
}

void budget_ledger_save(const budget_ledger_t* ledger, const char* file, char** errptr) {
  static const char kFn[] = "budget_ledger_save";
  Guarded(kFn, errptr, 0, [&]() {
    if (!CheckLedger(kFn, ledger, errptr) || !CheckText(kFn, "file", file, errptr)) return 0;
    Status s = budget::SaveLedger(ledger->ledger, file);
    if (!s.ok()) SaveError(errptr, s.message());
    return 0;
  });
}

budget_ledger_load_t budget_ledger_load(budget_ledger_t* ledger, const char* file,
                                        char** errptr) {
  static const char kFn[] = "budget_ledger_load";
  return Guarded(kFn, errptr, BUDGET_LEDGER_LOAD_FAILED, [&]() {
    if (!CheckLedger(kFn, ledger, errptr) || !CheckText(kFn, "file", file, errptr)) {
      return BUDGET_LEDGER_LOAD_FAILED;
    }
    Status s = budget::LoadLedger(file, &ledger->ledger);
    if (s.ok()) return BUDGET_LEDGER_LOADED;
    if (s.IsNotFound()) return BUDGET_LEDGER_NO_FILE;
    SaveError(errptr, s.message());
    return BUDGET_LEDGER_LOAD_FAILED;
  });
}

void budget_ledger_measure_service(const budget_ledger_t* ledger, const char* const* paths,
                                   size_t count, double entitlement, double capacity_gpus,
                                   int64_t from, int64_t to, budget_service_t* out,
                                   budget_hour_service_t** hours, char** errptr) {
  static const char kFn[] = "budget_ledger_measure_service";
  Guarded(kFn, errptr, 0, [&]() {
    if (!CheckLedger(kFn, ledger, errptr)) return 0;
    if (out == nullptr || (count > 0 && paths == nullptr)) {
      SaveError(errptr, std::string(kFn) + ": out or paths is NULL");
      return 0;
    }
    budget::ServiceQuery query;
    query.entitlement = entitlement;
    for (size_t i = 0; i < count; ++i) {
      if (paths[i] == nullptr) {
        SaveError(errptr, std::string(kFn) + ": paths[" + std::to_string(i) + "] is NULL");
        return 0;
      }
      query.paths.emplace_back(paths[i]);
    }
    budget::ServiceReport report;
    Status s = budget::MeasureService(ledger->ledger, query, capacity_gpus, from, to, &report);
    if (!s.ok()) {
      SaveError(errptr, s.message());
      return 0;
    }
    budget_hour_service_t* hour_array = nullptr;
    if (hours != nullptr && !report.hours.empty()) {
      hour_array = static_cast<budget_hour_service_t*>(
          std::malloc(report.hours.size() * sizeof(budget_hour_service_t)));
      if (hour_array == nullptr) {
        SaveError(errptr, std::string(kFn) + ": out of memory");
        return 0;
      }
      for (size_t i = 0; i < report.hours.size(); ++i) {
        hour_array[i].start = report.hours[i].start;
        hour_array[i].demand_gpu_seconds = report.hours[i].demand_gpu_seconds;
        hour_array[i].owed_gpu_seconds = report.hours[i].owed_gpu_seconds;
        hour_array[i].delivered_gpu_seconds = report.hours[i].delivered_gpu_seconds;
      }
    }
    if (hours != nullptr) *hours = hour_array;
    out->hour = report.hour;
    out->hour_count = report.hours.size();
    out->owed_gpu_seconds = report.owed_gpu_seconds;
    out->delivered_gpu_seconds = report.delivered_gpu_seconds;
    out->delivered_over_owed = report.delivered_over_owed;
    out->owed_delivered_fraction = report.owed_delivered_fraction;
    return 0;
  });
}

}  // extern "C"
