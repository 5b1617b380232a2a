// ChargedAccount: the account a job will be charged to, and the
// UnknownAccount=reject check of it (job_submit/contract).
//
// slurmctld calls job_submit plugins before it fills in a job's account
// (job_mgr.c: validate_job_create_req, then _job_create), so a job sent
// without -A reaches job_submit/contract with no account although Slurm
// will charge it to the user's default account in slurmdbd. The check must
// be of that account:
//   - -A given (non-empty): that account;
//   - else the user's default account, when slurmdbd gives one;
//   - else none: without slurmdbd there is no default account, and the job
//     would run under no account of the tree (refused under
//     UnknownAccount=reject, with a message that says to give -A).
// Known gap: with slurmdbd but without AccountingStorageEnforce=associations,
// slurmctld also replaces an -A the user has no association with by the
// default account; the check is then of the -A.
//
// Thread safety: plain functions over values.
#ifndef SLURM_BUDGET_LIBBUDGET_CHARGED_ACCOUNT_H_
#define SLURM_BUDGET_LIBBUDGET_CHARGED_ACCOUNT_H_

#include <optional>
#include <string>
#include <string_view>

namespace budget {

enum class AccountOrigin {
  kRequested,    // -A
  kUserDefault,  // the user's default account (slurmdbd)
  kNone,         // neither
};

struct ChargedAccount {
  std::string name;  // empty for kNone
  AccountOrigin origin = AccountOrigin::kNone;
};

// The account of a submission: `requested` is -A as sent (empty: not
// given), `user_default` the user's default account (empty: none known).
ChargedAccount ChargedAccountOf(std::string_view requested, std::string_view user_default);

// Whether the allocation tree binds an account.
enum class TreeBinding { kBound, kUnbound, kNoTree };

// Under UnknownAccount=reject, the refusal of `account` (one line for the
// user at the terminal, the account quoted through LogSafe), or nothing
// when the tree binds it. `with_slurmdbd` says whether a default account
// could have been looked up at all. E.g.
//   no -A given, and your default account lab7 has no allocation in the
//   budget tree (UnknownAccount=reject)
std::optional<std::string> UnknownAccountRefusal(const ChargedAccount& account, TreeBinding binding,
                                                 bool with_slurmdbd);

}  // namespace budget

#endif  // SLURM_BUDGET_LIBBUDGET_CHARGED_ACCOUNT_H_
