// The last good budget.conf: see config_last_good.h.
#include "libbudget/config/config_last_good.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace budget {

namespace {

// Reads a whole file; false (and *error) when it cannot, *absent when it
// does not exist.
bool ReadText(const std::string& file, std::string* text, bool* absent, std::string* error) {
  *absent = false;
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    *absent = errno == ENOENT;
    *error = file + ": cannot read: " + std::strerror(errno);
    return false;
  }
  std::ostringstream all;
  all << in.rdbuf();
  if (in.bad()) {
    *error = file + ": read error: " + std::strerror(errno);
    return false;
  }
  *text = all.str();
  return true;
}

Status SaveText(const std::string& file, const std::string& text) {
  std::string saved, error;
  bool absent = false;
  if (ReadText(file, &saved, &absent, &error) && saved == text) return Status::Ok();
  const std::string temp = file + ".new";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) return Status::IOError(temp + ": cannot write: " + std::strerror(errno));
  }
  if (std::rename(temp.c_str(), file.c_str()) != 0) {
    Status st = Status::IOError(file + ": cannot rename " + temp + ": " + std::strerror(errno));
    std::remove(temp.c_str());
    return st;
  }
  return Status::Ok();
}

Status Checked(Status st, const BudgetConfigCheck& check, const BudgetConfig& config, bool missing) {
  if (!st.ok() || !check) return st;
  return check(config, missing);
}

}  // namespace

Status LoadBudgetConfigWithLastGood(const std::string& path, const std::string& state_dir, bool reconfiguring,
                                    const BudgetConfigCheck& check, BudgetConfig* out, bool* missing,
                                    std::string* fallback) {
  fallback->clear();
  const std::string saved_file = state_dir.empty() ? "" : state_dir + "/" + kLastGoodBudgetConfigFile;
  std::string text, error;
  bool absent = false;
  BudgetConfig config;
  Status st;
  if (ReadText(path, &text, &absent, &error)) {
    st = Checked(ParseBudgetConfig(text, path, &config), check, config, false);
  } else if (absent) {
    config = BudgetConfig();
    st = Checked(Status::Ok(), check, config, true);
  } else {
    st = Status::IOError(error);
  }
  if (st.ok()) {
    *out = config;
    *missing = absent;
    if (!absent && !saved_file.empty()) {
      Status saved = SaveText(saved_file, text);
      if (!saved.ok()) *fallback = "could not keep a copy of the last good budget.conf: " + saved.message();
    }
    return Status::Ok();
  }
  if (!reconfiguring || saved_file.empty()) return st;
  std::string saved_text;
  bool saved_absent = false;
  if (!ReadText(saved_file, &saved_text, &saved_absent, &error)) return st;
  BudgetConfig last_good;
  Status saved_st = Checked(ParseBudgetConfig(saved_text, path, &last_good), check, last_good, false);
  if (!saved_st.ok()) return st;
  *out = last_good;
  *missing = false;
  *fallback = st.message() + "; using the last good configuration (" + saved_file + ", as " + path +
              ") until " + path + " is fixed";
  return Status::Ok();
}

}  // namespace budget
