// The Slurm-free half of job_facts.h (GpusIn, RunningJobOf, ShapeOf), so
// that the unit test links it without slurmctld.
#include <cctype>
#include <cstdlib>

#include "sched_timeslice/job_facts.h"

namespace timeslice {

namespace {

bool StartsToken(const std::string& s, size_t pos) {
  if (pos == 0) return true;
  char before = s[pos - 1];
  return before == '/' || before == ':' || before == ',';
}

uint32_t NumberAt(const std::string& s, size_t pos) {
  if (pos >= s.size() || !std::isdigit(static_cast<unsigned char>(s[pos]))) return 0;
  unsigned long long n = std::strtoull(s.c_str() + pos, nullptr, 10);
  return n > 0xffffffffull ? 0xffffffffu : static_cast<uint32_t>(n);
}

}  // namespace

uint32_t GpusIn(const std::string& spec) {
  for (size_t pos = spec.find("gpu"); pos != std::string::npos; pos = spec.find("gpu", pos + 3)) {
    if (!StartsToken(spec, pos)) continue;
    size_t after = pos + 3;
    if (after >= spec.size()) continue;
    if (spec[after] == '=') return NumberAt(spec, after + 1);
    if (spec[after] != ':') continue;  // "gpumem", "gpu_util"...
    // "gpu:8" or "gpu:type:8" or "gpu:type=8".
    if (uint32_t n = NumberAt(spec, after + 1)) return n;
    size_t sep = spec.find_first_of(":=,", after + 1);
    if (sep == std::string::npos || spec[sep] == ',') continue;
    return NumberAt(spec, sep + 1);
  }
  return 0;
}

budget::RunningJob RunningJobOf(const JobFacts& job, const StandingsView& view) {
  budget::RunningJob r;
  r.job_id = job.job_id;
  r.allocation = view.AllocationOf(job.account, job.user);
  r.start = job.start;
  r.min_runtime = job.contract.min_runtime;
  r.resumable = job.contract.resumable;
  r.user_priority = job.user_priority;
  for (int32_t node : job.nodes) r.nodes.push_back(budget::NodeGpus{node, job.gpus_per_node});
  return r;
}

budget::JobShape ShapeOf(const JobFacts& job, const StandingsView& view) {
  budget::JobShape s;
  s.job_id = job.job_id;
  s.allocation = view.AllocationOf(job.account, job.user);
  s.min_runtime = job.contract.min_runtime;
  s.node_count = job.node_count;
  s.gpus_per_node = job.gpus_per_node;
  return s;
}

}  // namespace timeslice
