// The user's default account: see default_account.h.
#include "default_account.h"

#include <cstring>

// Slurm's internal headers are C without __cplusplus guards.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wparentheses"
extern "C" {
#include "slurm_compat/begin_internal_headers.h"
#include "src/common/slurm_xlator.h"
#include "src/common/assoc_mgr.h"
#include "src/common/slurm_protocol_api.h"
#include "src/slurmctld/slurmctld.h"
#include "slurm_compat/end_internal_headers.h"
}
#pragma GCC diagnostic pop

namespace budget_submit {

bool WithSlurmdbd() { return slurm_with_slurmdbd(); }

std::string UserDefaultAccount(uint32_t uid) {
  if (!WithSlurmdbd()) return "";
  // job_submit/lua's _get_default_account lets assoc_mgr_fill_in_user take
  // and drop the user lock, then reads user.default_acct, which points into
  // the cache that slurmdbd's updates may free meanwhile. Here the lock is
  // held until the name is copied.
  assoc_mgr_lock_t locks;
  memset(&locks, 0, sizeof(locks));
  locks.user = READ_LOCK;
  slurmdb_user_rec_t user;
  memset(&user, 0, sizeof(user));
  user.uid = uid;
  std::string account;
  assoc_mgr_lock(&locks);
  // With `locked`, assoc_mgr_fill_in_user neither loads the user list nor
  // checks that there is one (assoc_mgr.c); before slurmctld has it, no
  // user has a default account yet.
  if (assoc_mgr_user_list &&
      assoc_mgr_fill_in_user(acct_db_conn, &user, accounting_enforce, nullptr, true) == SLURM_SUCCESS &&
      user.default_acct) {
    account = user.default_acct;
  }
  assoc_mgr_unlock(&locks);
  return account;
}

}  // namespace budget_submit
