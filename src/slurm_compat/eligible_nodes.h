// The nodes a pending job may run on, read from slurmctld's records the way
// its scheduler reads them: the one reading that preempt/timeslice (its
// pass's waiting jobs) and select/topo (the hero's nodes) share, so that
// neither frees or holds GPUs a job cannot use (libbudget/policy/eligibility.h).
//
//   partitions   the job's partition, or the union of its partitions
//   GPU type     of its GPU request (--gres=gpu:T:N, --gpus=T:N,
//                --gpus-per-node=T:N ...) against each node's Gres
//   constraint   -C, against each node's available features (the core's
//                evaluator: forms it does not evaluate pass every node)
//   reservation  inside the job's (unless FLEX), outside every other one
//                that overlaps [now, now + time limit]; a reservation of
//                part of a node's cores takes the whole node out (the pass
//                then frees GPUs elsewhere, never where the job cannot go)
//   --exclude    taken out; --nodelist: the set, when it names at least
//                the job's minimum node count (otherwise the job may also
//                go elsewhere, and every node stays in)
//
// Sets are in Slurm's node indices (node_record_table_ptr), interned per
// reader. The type and constraint matches are computed once per distinct
// (type, constraint) per reader: a pass reads thousands of jobs of a few
// kinds.
//
// REQUIRES: the job, node and partition read locks for the reader's life
// (reservations change only under the node write lock). Include after
// slurmctld's headers. The reservation list is given (slurmctld's
// `resv_list`): select/topo is loaded by clients too, which do not define
// it, so it must not reference the symbol (select_topo/topo_view.cc).
#ifndef SLURM_BUDGET_SLURM_COMPAT_ELIGIBLE_NODES_H_
#define SLURM_BUDGET_SLURM_COMPAT_ELIGIBLE_NODES_H_

#include <ctime>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "libbudget/policy/eligibility.h"

namespace slurm_compat {

class EligibleNodesReader {
 public:
  // `reservations`: slurmctld's resv_list (null: none).
  EligibleNodesReader(time_t now, List reservations) : now_(now), reservations_(reservations) {}
  ~EligibleNodesReader() {
    for (auto& entry : matching_) FREE_NULL_BITMAP(entry.second);
  }
  EligibleNodesReader(const EligibleNodesReader&) = delete;
  EligibleNodesReader& operator=(const EligibleNodesReader&) = delete;

  // Null: every node.
  budget::EligibleNodes Of(const job_record_t* job) {
    bitstr_t* set = nullptr;
    Partitions(job, &set);
    const std::string type = GpuType(job);
    const char* constraint = job->details && job->details->features ? job->details->features : "";
    if (!type.empty() || *constraint) Restrict(&set, Matching(type, constraint));
    Reservations(job, &set);
    if (job->details && job->details->exc_node_bitmap) {
      Restrict(&set, nullptr);
      bit_and_not(set, job->details->exc_node_bitmap);
    }
    if (job->details && job->details->req_node_bitmap &&
        uint32_t(bit_set_count(job->details->req_node_bitmap)) >= std::max<uint32_t>(job->details->min_nodes, 1))
      Restrict(&set, job->details->req_node_bitmap);
    if (!set) return nullptr;
    budget::EligibleNodes eligible;
    if (bit_set_count(set) != node_record_count) {
      budget::NodeSet nodes;
      const int first = bit_ffs(set), last = bit_fls(set);
      for (int i = std::max(first, 0); first >= 0 && i <= last; ++i)
        if (bit_test(set, i)) nodes.Add(i);
      eligible = interner_.Intern(std::move(nodes));
    }
    FREE_NULL_BITMAP(set);
    return eligible;
  }

 private:
  // *set &= mask (a null *set is every node; a null mask keeps *set, made
  // explicit).
  static void Restrict(bitstr_t** set, bitstr_t* mask) {
    if (!*set) {
      *set = bit_alloc(node_record_count);
      if (node_record_count > 0) bit_nset(*set, 0, node_record_count - 1);
    }
    if (mask) bit_and(*set, mask);
  }

  static void Partitions(const job_record_t* job, bitstr_t** set) {
    if (job->part_ptr_list && list_count(job->part_ptr_list) > 1) {
      bitstr_t* any = bit_alloc(node_record_count);
      ListIterator it = list_iterator_create(job->part_ptr_list);
      while (part_record_t* part = static_cast<part_record_t*>(list_next(it)))
        if (part->node_bitmap) bit_or(any, part->node_bitmap);
      list_iterator_destroy(it);
      Restrict(set, any);
      FREE_NULL_BITMAP(any);
    } else if (job->part_ptr && job->part_ptr->node_bitmap) {
      Restrict(set, job->part_ptr->node_bitmap);
    }
  }

  static std::string GpuType(const job_record_t* job) {
    for (const char* spec : {job->tres_per_node, job->tres_per_job, job->tres_per_socket, job->tres_per_task}) {
      if (!spec) continue;
      std::string type = budget::GpuTypeOfRequest(spec);
      if (!type.empty()) return type;
    }
    return "";
  }

  // Nodes whose GPU types and features satisfy (type, constraint).
  bitstr_t* Matching(const std::string& type, const char* constraint) {
    std::pair<std::string, std::string> key{type, constraint};
    auto found = matching_.find(key);
    if (found != matching_.end()) return found->second;
    bitstr_t* nodes = bit_alloc(node_record_count);
    budget::NodeAsks asks{type, constraint};
    // next_node(), not node_record_table_ptr: select/topo is loaded by
    // clients too, whose libslurm does not export that table (a data
    // symbol is bound at load time; a function only when called).
    node_record_t* node;
    for (int i = 0; (node = next_node(&i)); ++i) {
      budget::NodeOffers offers;
      offers.gpu_types = budget::GpuTypesOfNode(node->gres ? node->gres : "");
      offers.features = Split(node->features ? node->features : "");
      if (budget::NodeMatches(offers, asks)) bit_set(nodes, i);
    }
    matching_.emplace(std::move(key), nodes);
    return nodes;
  }

  void Reservations(const job_record_t* job, bitstr_t** set) const {
    const slurmctld_resv_t* own = job->resv_ptr;
    if (own && own->node_bitmap && !(own->flags & RESERVE_FLAG_FLEX)) Restrict(set, own->node_bitmap);
    if (!reservations_) return;
    const bool unlimited = job->time_limit == NO_VAL || job->time_limit == INFINITE;
    const time_t end = unlimited ? 0 : now_ + time_t(job->time_limit) * 60;
    ListIterator it = list_iterator_create(reservations_);
    while (const slurmctld_resv_t* resv = static_cast<slurmctld_resv_t*>(list_next(it))) {
      if (resv == own || !resv->node_bitmap || resv->end_time <= now_) continue;
      if (!unlimited && resv->start_time >= end) continue;
      Restrict(set, nullptr);
      bit_and_not(*set, resv->node_bitmap);
    }
    list_iterator_destroy(it);
  }

  static std::vector<std::string> Split(const std::string& list) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < list.size()) {
      size_t end = list.find(',', pos);
      if (end == std::string::npos) end = list.size();
      if (end > pos) out.push_back(list.substr(pos, end - pos));
      pos = end + 1;
    }
    return out;
  }

  time_t now_;
  List reservations_;
  std::map<std::pair<std::string, std::string>, bitstr_t*> matching_;
  budget::NodeSetInterner interner_;
};

}  // namespace slurm_compat

#endif  // SLURM_BUDGET_SLURM_COMPAT_ELIGIBLE_NODES_H_
