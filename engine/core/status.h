// The outcome of a solve or a step: ok, or what went wrong, when and how badly conditioned.
// Every stage returns it: kinematics, dynamics, the integrators, sensitivities.
#pragma once

#include <string>

namespace lw {

/// The outcome of a solve, a step or a run: ok, or what went wrong, where and when.
struct Status {
  // Rejected: a step attempt the integrator's error test refused (not a failure of the run); LeftBranch:
  // a step whose end is not the continuation of its start (the assembly branch changed)
  enum class Code { Ok, NotConverged, Singular, NotDriven, Overdriven, Cancelled, BadRequest, Rejected, LeftBranch };
  Code code = Code::Ok;
  std::string message;
  double time = 0;
  double conditionNumber = 0;
  bool ok() const { return code == Code::Ok; }
};

/// A failed status (the message is a sentence naming the time and the place).
Status failure(Status::Code code, double t, std::string message, double conditionNumber = 0);

/// A number for messages, four significant digits: "0.0359", "9.81e+12".
std::string shortNumber(double v);

}  // namespace lw
