// Association reader: see association_reader.h.
#include "priority_budget/association_reader.h"

#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "libbudget/state/tree_from_associations.h"
#include "priority_budget/slurm_headers.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wparentheses"
extern "C" {
#include "slurm_compat/begin_internal_headers.h"
#include "src/common/assoc_mgr.h"
#include "src/common/slurm_protocol_api.h"
#include "slurm_compat/end_internal_headers.h"
}
#pragma GCC diagnostic pop

namespace budget_prio {
namespace {

std::string OrEmpty(const char* s) { return s ? s : ""; }

// (account, user) -> the association kept, and its partition ("" first).
struct Kept {
  budget::AssociationRecord record;
  std::string partition;
};

// Copies the associations and the direct coordinators. REQUIRES:
// assoc_mgr's association and user read locks.
void CopyLocked(std::vector<budget::AssociationRecord>* associations, budget::AccountCoordinators* coordinators) {
  std::map<std::pair<std::string, std::string>, Kept> kept;
  ListIterator it = list_iterator_create(assoc_mgr_assoc_list);
  while (auto* assoc = static_cast<slurmdb_assoc_rec_t*>(list_next(it))) {
    Kept k;
    k.record.account = OrEmpty(assoc->acct);
    k.record.parent_account = OrEmpty(assoc->parent_acct);
    k.record.user = OrEmpty(assoc->user);
    k.record.shares_parent = assoc->shares_raw == SLURMDB_FS_USE_PARENT;
    k.record.shares = k.record.shares_parent ? 1 : assoc->shares_raw;
    k.partition = OrEmpty(assoc->partition);
    auto key = std::make_pair(k.record.account, k.record.user);
    auto found = kept.find(key);
    if (found == kept.end() || k.partition < found->second.partition) kept[key] = std::move(k);
  }
  list_iterator_destroy(it);
  for (auto& [key, k] : kept) associations->push_back(std::move(k.record));
  if (!assoc_mgr_user_list) return;
  it = list_iterator_create(assoc_mgr_user_list);
  while (auto* user = static_cast<slurmdb_user_rec_t*>(list_next(it))) {
    if (!user->name || !user->coord_accts) continue;
    ListIterator c = list_iterator_create(user->coord_accts);
    while (auto* coord = static_cast<slurmdb_coord_rec_t*>(list_next(c)))
      if (coord->name && coord->direct) (*coordinators)[coord->name].push_back(user->name);
    list_iterator_destroy(c);
  }
  list_iterator_destroy(it);
}

}  // namespace

budget::Status ReadAssociationTree(std::string* json) {
  if (!slurm_with_slurmdbd())
    return budget::Status::IOError(
        "slurmdbd: slurmctld keeps no associations (AccountingStorageType is not accounting_storage/slurmdbd)");
  std::vector<budget::AssociationRecord> associations;
  budget::AccountCoordinators coordinators;
  assoc_mgr_lock_t locks;
  memset(&locks, 0, sizeof(locks));
  locks.assoc = READ_LOCK;
  locks.user = READ_LOCK;
  assoc_mgr_lock(&locks);
  if (assoc_mgr_assoc_list) CopyLocked(&associations, &coordinators);
  assoc_mgr_unlock(&locks);
  if (associations.empty())
    return budget::Status::IOError("slurmdbd: slurmctld has no associations yet (is slurmdbd up?)");
  std::vector<std::string> warnings;
  budget::Status st = budget::TreeJsonFromAssociations(associations, coordinators, json, &warnings);
  // Each set of warnings once, not at every read.
  static std::mutex mu;
  static std::vector<std::string> last_warnings;
  std::lock_guard<std::mutex> lock(mu);
  if (warnings != last_warnings) {
    for (const std::string& w : warnings) info("priority/budget: BudgetTree=slurmdbd: %s", w.c_str());
    last_warnings = warnings;
  }
  if (!st.ok()) return budget::Status::InvalidArgument("slurmdbd's associations: " + st.message());
  return st;
}

}  // namespace budget_prio
