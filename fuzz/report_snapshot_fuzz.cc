// Fuzz target: the report snapshot (budget_report.json in StateSaveLocation),
// through ParseReportSnapshot, which ReadReportSnapshot (sbudget) calls with
// the file's bytes. A snapshot that reads is written again with
// FormatReportSnapshot (what priority/budget writes) and must read back.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "libbudget/report/report_snapshot.h"
#include "libbudget/report/report_reader.h"
#include "libbudget/report/report_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  budget::ReportSnapshot snapshot;
  budget::Status st = budget::ParseReportSnapshot(json, "budget_report.json", &snapshot);
  if (!st.ok()) {
    FUZZ_CHECK(!st.message().empty(), "a refused snapshot says why");
    return 0;
  }
  budget::ReportSnapshot back;
  FUZZ_CHECK(budget::ParseReportSnapshot(budget::FormatReportSnapshot(snapshot), "rewritten", &back).ok(),
             "ParseReportSnapshot reads what FormatReportSnapshot wrote");
  return 0;
}
