/* Tests of the ledger's C API (ledger_c.h), written in C as the plugin is.
 * Ledger: window 3600 s, allocated buckets 300 s, report buckets 900 s. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libbudget/ledger_c.h"

static const budget_ledger_options_t kSmall = {3600, 300, 900};

static void assert_near(double expected, double actual) {
  if (fabs(expected - actual) > 1e-6 * (fabs(expected) > 1 ? fabs(expected) : 1)) {
    fail_msg("expected %.9g, got %.9g", expected, actual);
  }
}

static budget_ledger_t* small_ledger(void) {
  char* err = NULL;
  budget_ledger_t* ledger = budget_ledger_create(&kSmall, &err);
  assert_null(err);
  assert_non_null(ledger);
  return ledger;
}

static void test_options(void** state) {
  (void)state;
  budget_ledger_options_t o;
  budget_ledger_default_options(&o);
  /* 7 x 86400 = 604800; 300; 3600 */
  assert_int_equal(604800, o.window);
  assert_int_equal(300, o.bucket_width);
  assert_int_equal(3600, o.report_bucket_width);

  char* err = NULL;
  assert_int_equal(1, budget_ledger_check_options(&o, &err));
  assert_null(err);
  budget_ledger_options_t bad = {1000, 300, 300};
  assert_int_equal(0, budget_ledger_check_options(&bad, &err));
  assert_string_equal("ledger options: window (1000 s) is not a multiple of "
                      "report_bucket_width (300 s)", err);
  /* Refused at creation too; the previous message is freed and replaced. */
  assert_null(budget_ledger_create(&bad, &err));
  assert_string_equal("ledger options: window (1000 s) is not a multiple of "
                      "report_bucket_width (300 s)", err);
  free(err);
  err = NULL;
  assert_int_equal(0, budget_ledger_check_options(NULL, &err));
  assert_string_equal("budget_ledger_check_options: options is NULL", err);
  free(err);

  /* NULL options: the defaults. */
  budget_ledger_t* ledger = budget_ledger_create(NULL, NULL);
  assert_non_null(ledger);
  budget_ledger_options(ledger, &o);
  assert_int_equal(604800, o.window);
  budget_ledger_destroy(ledger);
  budget_ledger_destroy(NULL); /* harmless */
}

static void test_window_edge(void** state) {
  (void)state;
  budget_ledger_t* ledger = small_ledger();
  char* err = NULL;
  /* 2 GPUs on [3000, 3300) = 600 GPU-s in bucket 10 (t = 3000). */
  budget_ledger_charge(ledger, "llm/pretrain", BUDGET_SERIES_ALLOCATED, 3000, 3300, 2.0, &err);
  assert_null(err);
  /* counted until t + W - 1 = 6599, gone at t + W = 6600 */
  assert_near(600, budget_ledger_window_usage(ledger, "llm/pretrain",
                                              BUDGET_SERIES_ALLOCATED, 6599, &err));
  assert_near(0, budget_ledger_window_usage(ledger, "llm/pretrain",
                                            BUDGET_SERIES_ALLOCATED, 6600, &err));
  assert_null(err);
  assert_int_equal(1, budget_ledger_path_count(ledger));
  budget_ledger_destroy(ledger);
}

static void test_window_usages_and_history(void** state) {
  (void)state;
  budget_ledger_t* ledger = small_ledger();
  char* err = NULL;
  /* a: 2 GPUs x 150 s in bucket 0 + 2 x 300 in bucket 1 = 900. b: 1 x 300. */
  budget_ledger_charge(ledger, "a", BUDGET_SERIES_ALLOCATED, 150, 600, 2.0, &err);
  budget_ledger_charge(ledger, "b", BUDGET_SERIES_ALLOCATED, 0, 300, 1.0, &err);
  const char* paths[] = {"a", "b", "unknown"};
  double usage[3] = {-1, -1, -1};
  budget_ledger_window_usages(ledger, paths, 3, BUDGET_SERIES_ALLOCATED, 600, usage, &err);
  assert_null(err);
  assert_near(900, usage[0]);
  assert_near(300, usage[1]);
  assert_near(0, usage[2]);

  int64_t start = -1, width = -1;
  size_t count = 99;
  double* values = budget_ledger_history(ledger, "a", BUDGET_SERIES_ALLOCATED, 0, 900, 0,
                                         &start, &width, &count, &err);
  assert_null(err);
  assert_non_null(values);
  /* buckets 0, 1, 2: 300, 600, 0 */
  assert_int_equal(0, start);
  assert_int_equal(300, width);
  assert_int_equal(3, count);
  assert_near(300, values[0]);
  assert_near(600, values[1]);
  assert_near(0, values[2]);
  free(values);
  /* An empty span: no array. */
  values = budget_ledger_history(ledger, "a", BUDGET_SERIES_ALLOCATED, 900, 900, 0, &start,
                                 &width, &count, &err);
  assert_null(values);
  assert_int_equal(0, count);
  assert_null(err);

  assert_int_equal(1, budget_ledger_forget_path(ledger, "b"));
  assert_int_equal(0, budget_ledger_forget_path(ledger, "b"));
  assert_int_equal(1, budget_ledger_path_count(ledger));
  budget_ledger_destroy(ledger);
}

static void test_running_jobs_and_cursors(void** state) {
  (void)state;
  budget_ledger_t* ledger = small_ledger();
  char* err = NULL;
  assert_int_equal(0, budget_ledger_charged_until(ledger, 5));
  /* job 5 since 0 on 4 GPUs, passes at 600 and 900: 4 x 900 = 3600 */
  budget_ledger_charge_running_job(ledger, 5, "a", BUDGET_SERIES_ALLOCATED, 0, 600, 4.0, &err);
  budget_ledger_charge_running_job(ledger, 5, "a", BUDGET_SERIES_ALLOCATED, 0, 900, 4.0, &err);
  budget_ledger_charge_running_job(ledger, 5, "a", BUDGET_SERIES_ALLOCATED, 0, 900, 4.0, &err);
  assert_null(err);
  assert_near(3600, budget_ledger_window_usage(ledger, "a", BUDGET_SERIES_ALLOCATED, 900, &err));
  assert_near(3600, budget_ledger_window_usage(ledger, "a", BUDGET_SERIES_DEMAND, 900, &err));
  assert_int_equal(900, budget_ledger_charged_until(ledger, 5));

  budget_ledger_set_charged_until(ledger, 2, 100);
  uint32_t ids[4] = {0, 0, 0, 0};
  /* two jobs, ascending */
  assert_int_equal(2, budget_ledger_jobs(ledger, ids, 4));
  assert_int_equal(2, ids[0]);
  assert_int_equal(5, ids[1]);
  assert_int_equal(2, budget_ledger_jobs(ledger, NULL, 0));
  /* a short array gets the first ids, the count is still the total */
  ids[0] = 0;
  assert_int_equal(2, budget_ledger_jobs(ledger, ids, 1));
  assert_int_equal(2, ids[0]);
  budget_ledger_forget_job(ledger, 2);
  assert_int_equal(0, budget_ledger_charged_until(ledger, 2));
  assert_int_equal(1, budget_ledger_jobs(ledger, NULL, 0));
  budget_ledger_destroy(ledger);
}

static void test_save_and_load(void** state) {
  (void)state;
  char dir[] = "/tmp/ledger_c_test.XXXXXX";
  assert_non_null(mkdtemp(dir));
  char file[256];
  snprintf(file, sizeof file, "%s/ledger", dir);
  char* err = NULL;

  budget_ledger_t* ledger = small_ledger();
  /* First start: no file yet; not an error. */
  assert_int_equal(BUDGET_LEDGER_NO_FILE, budget_ledger_load(ledger, file, &err));
  assert_null(err);

  /* 3 GPUs on [0, 600) = 1800; cursor of job 9 at 600. */
  budget_ledger_charge_running_job(ledger, 9, "a", BUDGET_SERIES_ALLOCATED, 0, 600, 3.0, &err);
  budget_ledger_save(ledger, file, &err);
  assert_null(err);

  budget_ledger_t* restarted = small_ledger();
  assert_int_equal(BUDGET_LEDGER_LOADED, budget_ledger_load(restarted, file, &err));
  assert_null(err);
  assert_near(1800, budget_ledger_window_usage(restarted, "a", BUDGET_SERIES_ALLOCATED, 600, &err));
  assert_int_equal(600, budget_ledger_charged_until(restarted, 9));

  /* A damaged file: refused, the ledger keeps what it had. */
  FILE* f = fopen(file, "r+b");
  assert_non_null(f);
  fseek(f, 30, SEEK_SET);
  fputc('!', f);
  fclose(f);
  assert_int_equal(BUDGET_LEDGER_LOAD_FAILED, budget_ledger_load(restarted, file, &err));
  assert_non_null(err);
  assert_non_null(strstr(err, "checksum mismatch"));
  assert_non_null(strstr(err, file));
  free(err);
  err = NULL;
  assert_near(1800, budget_ledger_window_usage(restarted, "a", BUDGET_SERIES_ALLOCATED, 600, &err));

  /* A save into a missing directory fails with a message naming the file. */
  char missing[300];
  snprintf(missing, sizeof missing, "%s/no/ledger", dir);
  budget_ledger_save(ledger, missing, &err);
  assert_non_null(err);
  assert_non_null(strstr(err, "cannot create: No such file or directory"));
  free(err);

  unlink(file);
  rmdir(dir);
  budget_ledger_destroy(ledger);
  budget_ledger_destroy(restarted);
}

static void test_measure_service(void** state) {
  (void)state;
  budget_ledger_options_t hours = {4 * 3600, 300, 3600};
  char* err = NULL;
  budget_ledger_t* ledger = budget_ledger_create(&hours, &err);
  assert_non_null(ledger);
  /* hour 0: demand 8 GPUs, allocated 3; hour 1: demand 2, allocated 2 */
  budget_ledger_charge(ledger, "p", BUDGET_SERIES_DEMAND, 0, 3600, 8.0, &err);
  budget_ledger_charge(ledger, "p", BUDGET_SERIES_ALLOCATED, 0, 3600, 3.0, &err);
  budget_ledger_charge(ledger, "p", BUDGET_SERIES_DEMAND, 3600, 7200, 2.0, &err);
  budget_ledger_charge(ledger, "p", BUDGET_SERIES_ALLOCATED, 3600, 7200, 2.0, &err);
  const char* paths[] = {"p"};
  budget_service_t out;
  budget_hour_service_t* per_hour = NULL;
  budget_ledger_measure_service(ledger, paths, 1, 0.35, 10.0, 0, 7200, &out, &per_hour, &err);
  assert_null(err);
  assert_int_equal(3600, out.hour);
  assert_int_equal(2, out.hour_count);
  assert_non_null(per_hour);
  /* entitled 0.35 x 10 x 3600 = 12600 per hour;
   * owed min(12600, 28800) + min(12600, 7200) = 12600 + 7200 = 19800 */
  assert_near(19800, out.owed_gpu_seconds);
  /* delivered 3 x 3600 + 2 x 3600 = 18000; 18000 / 19800 = 0.90909 */
  assert_near(18000, out.delivered_gpu_seconds);
  assert_near(18000.0 / 19800.0, out.delivered_over_owed);
  assert_near(18000.0 / 19800.0, out.owed_delivered_fraction);
  assert_int_equal(3600, per_hour[1].start);
  assert_near(7200, per_hour[1].owed_gpu_seconds);
  assert_near(28800, per_hour[0].demand_gpu_seconds);
  free(per_hour);

  /* A bad entitlement is refused, *out untouched. */
  out.owed_gpu_seconds = 42;
  budget_ledger_measure_service(ledger, paths, 1, 1.5, 10.0, 0, 7200, &out, NULL, &err);
  assert_string_equal("service metrics: entitlement 1.500000 is not in [0, 1]", err);
  assert_near(42, out.owed_gpu_seconds);
  free(err);
  budget_ledger_destroy(ledger);
}

static void test_null_and_bad_arguments(void** state) {
  (void)state;
  budget_ledger_t* ledger = small_ledger();
  char* err = NULL;
  struct {
    const char* expected;
  } messages[] = {
      {"budget_ledger_charge: ledger is NULL"},
      {"budget_ledger_charge: path is NULL"},
      {"budget_ledger_charge: unknown series 7"},
      {"budget_ledger_window_usage: ledger is NULL"},
      {"budget_ledger_window_usages: paths[1] is NULL"},
      {"budget_ledger_history: start, width or count is NULL"},
      {"budget_ledger_save: file is NULL"},
      {"budget_ledger_load: ledger is NULL"},
      {"budget_ledger_measure_service: out or paths is NULL"},
      {"budget_ledger_charge_running_job: path is NULL"},
  };
  const char* paths[] = {"a", NULL};
  double usage[2] = {0, 0};
  budget_service_t out;
  for (size_t i = 0; i < sizeof messages / sizeof messages[0]; ++i) {
    switch (i) {
      case 0: budget_ledger_charge(NULL, "a", BUDGET_SERIES_ALLOCATED, 0, 1, 1, &err); break;
      case 1: budget_ledger_charge(ledger, NULL, BUDGET_SERIES_ALLOCATED, 0, 1, 1, &err); break;
      case 2: budget_ledger_charge(ledger, "a", 7, 0, 1, 1, &err); break;
      case 3:
        assert_near(0, budget_ledger_window_usage(NULL, "a", BUDGET_SERIES_ALLOCATED, 0, &err));
        break;
      case 4:
        budget_ledger_window_usages(ledger, paths, 2, BUDGET_SERIES_ALLOCATED, 0, usage, &err);
        break;
      case 5:
        assert_null(budget_ledger_history(ledger, "a", BUDGET_SERIES_ALLOCATED, 0, 1, 0, NULL,
                                          NULL, NULL, &err));
        break;
      case 6: budget_ledger_save(ledger, NULL, &err); break;
      case 7:
        assert_int_equal(BUDGET_LEDGER_LOAD_FAILED, budget_ledger_load(NULL, "f", &err));
        break;
      case 8:
        budget_ledger_measure_service(ledger, NULL, 1, 0.5, 1, 0, 1, &out, NULL, &err);
        break;
      case 9:
        budget_ledger_charge_running_job(ledger, 1, NULL, BUDGET_SERIES_ALLOCATED, 0, 1, 1, &err);
        break;
    }
    /* Each message replaces (and frees) the previous one. */
    assert_non_null(err);
    assert_string_equal(messages[i].expected, err);
  }
  free(err);
  /* Lookups on NULL are answers, not crashes. */
  assert_int_equal(0, budget_ledger_charged_until(NULL, 1));
  assert_int_equal(0, budget_ledger_path_count(NULL));
  assert_int_equal(0, budget_ledger_jobs(NULL, NULL, 0));
  assert_int_equal(0, budget_ledger_forget_path(NULL, "a"));
  budget_ledger_set_charged_until(NULL, 1, 1);
  budget_ledger_forget_job(NULL, 1);
  /* NULL errptr: the error is dropped. */
  budget_ledger_charge(NULL, "a", BUDGET_SERIES_ALLOCATED, 0, 1, 1, NULL);
  /* Nothing was charged by the refused calls. */
  assert_int_equal(0, budget_ledger_path_count(ledger));
  budget_ledger_destroy(ledger);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_options),
      cmocka_unit_test(test_window_edge),
      cmocka_unit_test(test_window_usages_and_history),
      cmocka_unit_test(test_running_jobs_and_cursors),
      cmocka_unit_test(test_save_and_load),
      cmocka_unit_test(test_measure_service),
      cmocka_unit_test(test_null_and_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
