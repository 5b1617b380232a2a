// CMocka for the C++ unit tests of the core. cmocka.h has no extern "C"
// guard around its functions (print_error, _assert_*), so C++ tests include
// it through this header, never directly.
#ifndef SLURM_BUDGET_LIBBUDGET_TEST_SUPPORT_H_
#define SLURM_BUDGET_LIBBUDGET_TEST_SUPPORT_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include <cmocka.h>
}

#endif  // SLURM_BUDGET_LIBBUDGET_TEST_SUPPORT_H_
