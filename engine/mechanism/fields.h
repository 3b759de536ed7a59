// One walk over every numeric field of a Mechanism, with its path: the single table that
// validation, parameter dependencies (sensitivities) and editors share.
#pragma once

#include <functional>
#include <string>

#include "mechanism/mechanism.h"

namespace lw {

/// What a field measures: its SI unit in the file, and how editors show it (angles in degrees).
enum class Quantity {
  None, Length, Angle, Mass, Inertia, Acceleration, Velocity, AngularVelocity, Force, Torque,
  LinearStiffness, RotaryStiffness, LinearDamping, RotaryDamping
};
/// The SI unit as written: "m", "rad", "kg", "kg·m²", "m/s²", ... ("" for None).
const char* siUnit(Quantity q);

struct FieldVisit {
  const std::string& path;  // JSON path, e.g. "bodies[2].points.B[0]"
  const Number& number;
  bool timeAllowed;         // functions of time (drivers, applied forces) may use `t`
  Quantity quantity = Quantity::None;
};

/// Calls `fn` for every numeric field of the model (not the parameters' own values), in file
/// order.
void forEachNumber(const Mechanism& m, const std::function<void(const FieldVisit&)>& fn);

/// The numeric field at `path` (as forEachNumber names it), or null: what editors write through.
Number* numberAt(Mechanism& m, const std::string& path);

}  // namespace lw
