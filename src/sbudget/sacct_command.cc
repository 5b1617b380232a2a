// Running sacct (sacct_command.h).
#include "sbudget/sacct_command.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace sbudget {

namespace {

// Reads `fd` to its end into *out.
void ReadAll(int fd, std::string* out) {
  char buf[65536];
  while (true) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      out->append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return;
    }
  }
}

}  // namespace

budget::Status RunSacct(const std::string& program, const std::vector<std::string>& args, std::string* out) {
  int pipe_out[2];
  if (pipe(pipe_out) != 0) return budget::Status::IOError(std::string("pipe: ") + std::strerror(errno));
  // Standard error goes to an unnamed file, read after the child ended, so
  // that a chatty sacct cannot block on a full pipe.
  FILE* err_file = tmpfile();
  if (err_file == nullptr) {
    close(pipe_out[0]);
    close(pipe_out[1]);
    return budget::Status::IOError(std::string("tmpfile: ") + std::strerror(errno));
  }
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // A pipe that tells the parent whether exec failed (closed on exec).
  int exec_status[2];
  if (pipe2(exec_status, O_CLOEXEC) != 0) {
    fclose(err_file);
    close(pipe_out[0]);
    close(pipe_out[1]);
    return budget::Status::IOError(std::string("pipe: ") + std::strerror(errno));
  }
  const pid_t child = fork();
  if (child < 0) {
    fclose(err_file);
    for (int fd : {pipe_out[0], pipe_out[1], exec_status[0], exec_status[1]}) close(fd);
    return budget::Status::IOError(std::string("fork: ") + std::strerror(errno));
  }
  if (child == 0) {
    dup2(pipe_out[1], STDOUT_FILENO);
    dup2(fileno(err_file), STDERR_FILENO);
    close(pipe_out[0]);
    close(pipe_out[1]);
    close(exec_status[0]);
    setenv("TZ", "UTC", 1);
    setenv("SLURM_TIME_FORMAT", "standard", 1);
    execvp(program.c_str(), argv.data());
    int e = errno;
    ssize_t ignored = write(exec_status[1], &e, sizeof e);
    (void)ignored;
    _exit(127);
  }
  close(pipe_out[1]);
  close(exec_status[1]);
  ReadAll(pipe_out[0], out);
  close(pipe_out[0]);
  int exec_errno = 0;
  const bool exec_failed = read(exec_status[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  close(exec_status[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::string err;
  rewind(err_file);
  ReadAll(fileno(err_file), &err);
  fclose(err_file);
  if (exec_failed) {
    if (exec_errno == ENOENT)
      return budget::Status::NotFound(program + " not found in PATH: install Slurm's client commands "
                                                "(sacct), or give --sacct-file FILE");
    return budget::Status::IOError("cannot run " + program + ": " + std::strerror(exec_errno));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    if (err.size() > 2000) err = err.substr(0, 2000) + "...";
    const std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                              : "signal " + std::to_string(WTERMSIG(status));
    return budget::Status::IOError(program + " failed (" + how + ")" + (err.empty() ? "" : ": " + err) +
                                   "; its output is not used");
  }
  return budget::Status::Ok();
}

}  // namespace sbudget
