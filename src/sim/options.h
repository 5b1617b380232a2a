// The command line of budget-sim (every option is in doc/budget-sim.1).
//
// Durations use Slurm's time format ("15" = 15 minutes, "8:00:00", "7-0").
// Errors name the option and the bad value.
#ifndef SLURM_BUDGET_SIM_OPTIONS_H_
#define SLURM_BUDGET_SIM_OPTIONS_H_

#include <string>
#include <vector>

#include "libbudget/status.h"
#include "sim/engine.h"
#include "sim/trace_reader.h"

namespace budget {
namespace sim {

// A --drain or --resume of the command line: node index and time after the
// first submission.
struct NodeEventOption {
  bool drain = true;  // false: --resume
  int32_t node = 0;
  Seconds after_first_submit = 0;
};

struct SimOptions {
  EngineOptions engine;
  uint32_t group_size = 0;   // --topology-group-size
  std::string tree_file, config_file;
  std::string trace_file;
  TraceFormat format = TraceFormat::kNative;
  TraceOptions trace;
  std::string scenario_file;  // --generate
  // --generate-family SPEC: run every policy on --count mixes drawn with
  // --seed (family.h); --dump-mix K writes mix K to --dump-dir instead.
  std::string family_file;
  uint32_t family_count = 50;
  uint64_t family_seed = 1;
  int64_t dump_mix = -1;
  std::string dump_dir = "mix";
  uint32_t threads = 1;
  bool policies_given = false;  // --policy was given
  std::string write_trace;    // --write-trace
  std::vector<std::string> policies{"budget", "fairtree", "priority", "fifo"};
  Seconds horizon = -1;       // --horizon, from the first submission
  std::vector<NodeEventOption> node_events;  // --drain/--resume, in order
  std::string json_file, svg_file, svg_usage_file;
  std::string events_json_file;  // --events-json: every run of every job
  Seconds svg_start = 0, svg_length = -1;
  bool progress = true;
  bool help = false, version = false;
};

// Parses argv[1..argc). InvalidArgument naming the option on error.
Status ParseOptions(int argc, char** argv, SimOptions* out);

// The engine's drains from --drain/--resume, with times made absolute from
// the workload's first submission: each --resume ends the latest --drain of
// its node before it. InvalidArgument for a --resume with no drain before
// it, or a node outside the cluster.
Status NodeDrainsOf(const SimOptions& options, TimePoint first_submit, std::vector<NodeDrain>* out);
std::string UsageText();

}  // namespace sim
}  // namespace budget

#endif  // SLURM_BUDGET_SIM_OPTIONS_H_
