// Problems found in a mechanism, reported to the user by path ("bodies[2].mass"), and by line
// and column when the mechanism came from a file.
#pragma once

#include <string>
#include <vector>

namespace lw {

struct Diagnostic {
  enum class Severity { Error, Warning };
  Severity severity = Severity::Error;
  std::string path;     // JSON path of the offending item, "" for the whole file
  std::string message;  // a plain sentence
  int line = 0;         // 1-based; 0 when unknown
  int column = 0;       // 1-based; 0 when unknown
  bool atKey = false;   // locate the key of `path` (an unknown key) rather than its value

  bool isError() const { return severity == Severity::Error; }
  /// "file:12:5: bodies[2].mass: the mass is negative" (file and position when known).
  std::string format(const std::string& file = {}) const;
};

using Diagnostics = std::vector<Diagnostic>;

inline bool hasErrors(const Diagnostics& d) {
  for (const auto& x : d)
    if (x.isError()) return true;
  return false;
}

}  // namespace lw
