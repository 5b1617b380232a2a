// sbudget: budget reports for managers and researchers (see sbudget(1)).
// The real environment for the command line of cli.h: libslurm, the clock,
// the invoking user, $SLURM_CONF.
#include <pwd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <string>
#include <vector>

#include "sbudget/cli.h"
#include "sbudget/sacct_command.h"
#include "sbudget/slurm_api.h"
#include "sbudget/snapshot_locate.h"

namespace {

std::string InvokingUser() {
  struct passwd pw;
  struct passwd* found = nullptr;
  char buf[4096];
  if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &found) == 0 && found != nullptr) {
    return found->pw_name;
  }
  return std::to_string(getuid());
}

}  // namespace

int main(int argc, char** argv) {
  // Nothing may end in a stack trace: any escaping exception (out of
  // memory) becomes one line and exit status 1.
  try {
    sbudget::Environment env;
    env.now = static_cast<budget::TimePoint>(std::time(nullptr));
    env.current_user = InvokingUser();
    env.slurm_conf = sbudget::SlurmConfPath();
    // The terminal's width, as the shell exports it (sshare reads it too).
    if (const char* columns = std::getenv("COLUMNS")) {
      long n = std::strtol(columns, nullptr, 10);
      if (n > 0 && n < 10000) env.columns = static_cast<size_t>(n);
    }
    // Without a readable slurm.conf libslurm retries it for a minute before
    // failing; then sbudget works from the snapshot alone.
    if (access(env.slurm_conf.c_str(), R_OK) == 0) {
      env.load_job = sbudget::LoadSlurmJob;
      env.load_pending_jobs = sbudget::LoadPendingSlurmJobs;
      env.load_jobs = sbudget::LoadSlurmJobs;
      env.load_state_save_location = sbudget::LoadStateSaveLocation;
      env.seed.controller_answers = sbudget::ControllerAnswers;
    }
    env.seed.run_sacct = [](const std::vector<std::string>& args, std::string* out) {
      return sbudget::RunSacct("sacct", args, out);
    };
    sbudget::Io io;
    int status = sbudget::RunSbudget(std::vector<std::string>(argv + 1, argv + argc), env, &io);
    std::fputs(io.out.c_str(), stdout);
    std::fputs(io.err.c_str(), stderr);
    return status;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sbudget: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "sbudget: unexpected error\n");
  }
  return 1;
}
