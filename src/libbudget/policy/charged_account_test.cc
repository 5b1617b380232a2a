// Tests of the account a submission is charged to and its check under
// UnknownAccount=reject (charged_account.h).
#include "libbudget/testing/test_support.h"

#include <cstring>
#include <optional>
#include <string>

#include "libbudget/policy/charged_account.h"

using budget::AccountOrigin;
using budget::ChargedAccount;
using budget::ChargedAccountOf;
using budget::TreeBinding;
using budget::UnknownAccountRefusal;

namespace {

void test_the_account_is_the_requested_one_else_the_users_default(void**) {
  struct Case {
    const char* requested;
    const char* user_default;
    const char* name;
    AccountOrigin origin;
  } cases[] = {
      // -A wins over the default, as in slurmctld's _job_create.
      {"robotics", "pretrain", "robotics", AccountOrigin::kRequested},
      {"robotics", "", "robotics", AccountOrigin::kRequested},
      // No -A (sent as nothing or as ""): the user's default account.
      {"", "pretrain", "pretrain", AccountOrigin::kUserDefault},
      // Neither (no slurmdbd, or a user without a default account).
      {"", "", "", AccountOrigin::kNone},
  };
  for (const Case& c : cases) {
    ChargedAccount a = ChargedAccountOf(c.requested, c.user_default);
    assert_string_equal(a.name.c_str(), c.name);
    assert_int_equal(static_cast<int>(a.origin), static_cast<int>(c.origin));
  }
}

void test_a_bound_account_is_not_refused(void**) {
  for (const ChargedAccount& a : {ChargedAccountOf("pretrain", ""), ChargedAccountOf("", "pretrain")}) {
    assert_false(UnknownAccountRefusal(a, TreeBinding::kBound, true).has_value());
  }
}

void test_each_refusal_says_which_account_and_where_it_came_from(void**) {
  struct Case {
    ChargedAccount account;
    TreeBinding binding;
    bool with_slurmdbd;
    const char* message;
  } cases[] = {
      {ChargedAccountOf("nobody", ""), TreeBinding::kUnbound, false,
       "account nobody has no allocation in the budget tree (UnknownAccount=reject)"},
      // The default account is named, and said to be the default: the user
      // typed no account at all.
      {ChargedAccountOf("", "outside"), TreeBinding::kUnbound, true,
       "no -A given, and your default account outside has no allocation in the budget tree "
       "(UnknownAccount=reject)"},
      {ChargedAccountOf("", ""), TreeBinding::kUnbound, false,
       "no -A given, and without slurmdbd Slurm has no default account to charge: give -A with an account "
       "of the budget tree (UnknownAccount=reject)"},
      {ChargedAccountOf("", ""), TreeBinding::kUnbound, true,
       "no -A given, and you have no default account in Slurm's accounting: give -A with an account of the "
       "budget tree (UnknownAccount=reject)"},
      {ChargedAccountOf("teama", ""), TreeBinding::kNoTree, false,
       "account teama cannot be checked: no allocation tree has loaded yet (UnknownAccount=reject)"},
      {ChargedAccountOf("", "teama"), TreeBinding::kNoTree, true,
       "your default account teama cannot be checked: no allocation tree has loaded yet (UnknownAccount=reject)"},
      {ChargedAccountOf("", ""), TreeBinding::kNoTree, false,
       "the job's account cannot be checked: no allocation tree has loaded yet (UnknownAccount=reject)"},
  };
  for (const Case& c : cases) {
    std::optional<std::string> refusal = UnknownAccountRefusal(c.account, c.binding, c.with_slurmdbd);
    assert_true(refusal.has_value());
    assert_string_equal(refusal->c_str(), c.message);
  }
}

void test_the_account_is_quoted_safely(void**) {
  // A name with a newline cannot start a line of its own in the log: \x0a.
  std::optional<std::string> refusal =
      UnknownAccountRefusal(ChargedAccountOf("", "a\nb"), TreeBinding::kUnbound, true);
  assert_true(refusal.has_value());
  assert_non_null(strstr(refusal->c_str(), "your default account a\\x0ab has"));
}

}  // namespace

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_the_account_is_the_requested_one_else_the_users_default),
      cmocka_unit_test(test_a_bound_account_is_not_refused),
      cmocka_unit_test(test_each_refusal_says_which_account_and_where_it_came_from),
      cmocka_unit_test(test_the_account_is_quoted_safely),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
