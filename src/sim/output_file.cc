#include "sim/output_file.h"

#include <fstream>

namespace budget {
namespace sim {

Status WriteTextFile(const std::string& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) return Status::IOError(file + ": cannot open for writing");
  out << text;
  out.close();
  if (!out) return Status::IOError(file + ": write error");
  return Status::Ok();
}

Status WriteOutputFile(const std::string& file, const std::string& text, const std::string& what,
                       std::FILE* log) {
  Status st = WriteTextFile(file, text);
  if (st.ok()) std::fprintf(log, "budget-sim: wrote %s (%s)\n", file.c_str(), what.c_str());
  return st;
}

}  // namespace sim
}  // namespace budget
