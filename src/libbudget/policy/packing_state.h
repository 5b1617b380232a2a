// PackingState: what select/topo publishes about GPU packing, for the log
// and for the report tool: the fragmentation figure (packing.h), the free
// GPUs of every node, and the hero plan in force (hero_plan.h).
//
// The state file (`select_topo_state.json` in StateSaveLocation) is one JSON
// object, written whole and atomically (temporary file, then rename), so a
// reader sees either the previous or the new state, never half of one:
//   { "version": 1,
//     "time": 1700000000,              // seconds since the epoch
//     "fragmentation": 0.25,           // packing.h Fragmentation()
//     "free_gpus": 24,                 // on usable nodes
//     "stranded_gpus": 6,              // of those, on partially free nodes
//     "nodes": [ { "name": "n1", "free_gpus": 2, "total_gpus": 8, "usable": true }, ... ],
//     "hero": { "job_id": 12, "planned_start": 1700000600, "waiting_since": 1699998200,
//               "promised_start": 1700000300, "nodes": ["n3", "n4"] }  // or null
//   }
// hero.waiting_since (when the hero last became eligible, hero_plan.h
// QueueEntry; its wait is now minus it) came after version 1's first
// files: a file without it reads as 0, unknown (doc/formats.md).
// hero.promised_start (hero_plan.h HeroPlan::promised_start) came later
// still: a file without it reads as the planned start.
// Readers ignore keys they do not know; a later version adds keys, never
// changes the meaning of these.
//
// Thread safety: plain functions over values; no shared state. The file
// functions are safe to call concurrently only on different paths.
#ifndef SLURM_BUDGET_LIBBUDGET_PACKING_STATE_H_
#define SLURM_BUDGET_LIBBUDGET_PACKING_STATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "libbudget/policy/hero_plan.h"
#include "libbudget/policy/packing.h"
#include "libbudget/standing.h"
#include "libbudget/status.h"

namespace budget {

constexpr int kPackingStateVersion = 1;
constexpr const char kPackingStateFile[] = "select_topo_state.json";

struct PublishedNode {
  std::string name;
  uint32_t free_gpus = 0;
  uint32_t total_gpus = 0;
  bool usable = true;
};

struct PackingState {
  TimePoint time = 0;
  double fragmentation = 0.0;
  uint32_t free_gpus = 0;      // on usable nodes
  uint32_t stranded_gpus = 0;  // free GPUs that cannot host a whole-node job
  std::vector<PublishedNode> nodes;
  bool hero_active = false;
  uint32_t hero_job_id = 0;
  TimePoint hero_planned_start = 0;
  TimePoint hero_waiting_since = 0;  // 0: unknown (a file written before the key)
  TimePoint hero_promised_start = 0;  // hero_plan.h HeroPlan::promised_start
  std::vector<std::string> hero_nodes;
  // The quick-start reserve's nodes (quick_reserve.h); empty: none (or a
  // file written before the key).
  std::vector<std::string> reserve_nodes;
};

// The state of `nodes` at `now`; names[i] names nodes[i] (a missing name is
// written as the node's index). The hero part is left inactive.
// REQUIRES: ValidateNodes(nodes).ok().
PackingState SummarizePacking(const std::vector<NodeState>& nodes, const std::vector<std::string>& names,
                              TimePoint now);

// One log line, e.g.
//   "fragmentation 0.25 (6 of 24 free GPUs cannot host a whole-node job)".
std::string FragmentationLine(const PackingState& state);

// The JSON text of the state file (format above).
std::string FormatPackingState(const PackingState& state);

// Reads the JSON text of a state file; `file` names it in errors, which give
// the JSON key and why (bad JSON, a missing or mistyped key, an unknown
// version). On error *out is untouched.
Status ParsePackingState(const std::string& text, const std::string& file, PackingState* out);

// Writes the state to `path` atomically (path + ".tmp", then rename).
Status SavePackingState(const std::string& path, const PackingState& state);

// Reads and parses the state file at `path`; NotFound when it is absent.
Status LoadPackingState(const std::string& path, PackingState* out);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_PACKING_STATE_H_
