#include "core/status.h"

#include <sstream>

namespace lw {

Status failure(Status::Code code, double t, std::string message, double conditionNumber) {
  Status s;
  s.code = code;
  s.time = t;
  s.message = std::move(message);
  s.conditionNumber = conditionNumber;
  return s;
}

std::string shortNumber(double v) {
  std::ostringstream os;
  os.precision(4);
  os << v;
  return os.str();
}

}  // namespace lw
