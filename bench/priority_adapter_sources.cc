// The Slurm-free sources of the priority/budget adapter that
// priority_recalc_bench runs, compiled as part of the benchmark. One file
// that includes them, so that automake builds no object outside bench/ (an
// object in src/priority_budget/ would belong to no Makefile there).
#include "priority_budget/job_view.cc"
#include "priority_budget/job_view_cache.cc"
#include "priority_budget/priority_pass.cc"
#include "priority_budget/report_writer.cc"
#include "priority_budget/usage_charging.cc"
