// The report snapshot's schema (report_snapshot.h): the lookups on it.
#include "libbudget/report/report_snapshot.h"

#include <algorithm>

namespace budget {

const char* SnapshotJobStateName(SnapshotJobState state) {
  switch (state) {
    case SnapshotJobState::kPending: return "pending";
    case SnapshotJobState::kRunning: return "running";
    case SnapshotJobState::kPreempted: return "preempted";
  }
  return "pending";
}

const SnapshotNode* ReportSnapshot::FindNode(std::string_view path) const {
  for (const SnapshotNode& n : nodes) {
    if (n.path == path) return &n;
  }
  return nullptr;
}

const SnapshotJob* ReportSnapshot::FindJob(uint32_t job_id) const {
  for (const SnapshotJob& j : jobs) {
    if (j.job_id == job_id) return &j;
  }
  return nullptr;
}

Seconds ReportSnapshot::StaleAfter() const {
  return std::max<Seconds>(kStaleIntervals * recalc_interval, kMinStaleAge);
}

}  // namespace budget
