#include "libbudget/policy/charged_account.h"

#include "libbudget/config/log_safe.h"

namespace budget {

ChargedAccount ChargedAccountOf(std::string_view requested, std::string_view user_default) {
  if (!requested.empty()) return {std::string(requested), AccountOrigin::kRequested};
  if (!user_default.empty()) return {std::string(user_default), AccountOrigin::kUserDefault};
  return {};
}

std::optional<std::string> UnknownAccountRefusal(const ChargedAccount& account, TreeBinding binding,
                                                 bool with_slurmdbd) {
  constexpr char kPolicy[] = " (UnknownAccount=reject)";
  if (binding == TreeBinding::kBound) return std::nullopt;
  if (binding == TreeBinding::kNoTree) {
    // Every account is unbound while no tree has loaded: the policy the
    // admin chose holds then too (priority/budget logs why at every pass).
    const std::string which = account.origin == AccountOrigin::kNone ? "the job's account"
                              : account.origin == AccountOrigin::kUserDefault
                                  ? "your default account " + LogSafe(account.name)
                                  : "account " + LogSafe(account.name);
    return which + " cannot be checked: no allocation tree has loaded yet" + kPolicy;
  }
  switch (account.origin) {
    case AccountOrigin::kRequested:
      return "account " + LogSafe(account.name) + " has no allocation in the budget tree" + kPolicy;
    case AccountOrigin::kUserDefault:
      return "no -A given, and your default account " + LogSafe(account.name) +
             " has no allocation in the budget tree" + kPolicy;
    case AccountOrigin::kNone:
      break;
  }
  if (!with_slurmdbd) {
    return std::string("no -A given, and without slurmdbd Slurm has no default account to charge: "
                       "give -A with an account of the budget tree") + kPolicy;
  }
  return std::string("no -A given, and you have no default account in Slurm's accounting: "
                     "give -A with an account of the budget tree") + kPolicy;
}

}  // namespace budget
