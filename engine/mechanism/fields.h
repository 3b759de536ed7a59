// One walk over every numeric field of a Mechanism, with its path: the single table that
// validation, parameter dependencies (sensitivities) and editors share.
#pragma once

#include <functional>
#include <string>

#include "mechanism/mechanism.h"

namespace lw {

struct FieldVisit {
  const std::string& path;  // JSON path, e.g. "bodies[2].points.B[0]"
  const Number& number;
  bool timeAllowed;         // functions of time (drivers, applied forces) may use `t`
};

/// Calls `fn` for every numeric field of the model (not the parameters' own values), in file
/// order.
void forEachNumber(const Mechanism& m, const std::function<void(const FieldVisit&)>& fn);

/// The numeric field at `path` (as forEachNumber names it), or null: what editors write through.
Number* numberAt(Mechanism& m, const std::string& path);

}  // namespace lw
