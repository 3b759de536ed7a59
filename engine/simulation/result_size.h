// The memory a run's stored rows will take, checked before the run: a request that cannot fit is
// refused with the numbers, not killed by the system (or by a failed allocation) part-way.
#pragma once

#include <string>
#include <vector>

namespace lw::analysis {

/// Runs longer than this many steps are refused (a step of 1e-300 s, an end time of 1e308 s).
constexpr double kMaxSteps = 1e9;

/// Empty when an end time and a step make a run: both finite and positive, the step no longer
/// than the span, at most kMaxSteps steps; otherwise the sentence that says what is wrong.
std::string timeSpanProblem(double tEnd, double dt);
/// Empty when the end time is a whole number of steps (a fixed step ends where its steps end: an
/// end between two steps used to be rounded to the nearer one silently); otherwise the sentence
/// with the two end times that are.
std::string wholeStepsProblem(double tEnd, double dt);
/// Empty when given sample times make a run: finite, greater than 0, increasing, at most
/// kMaxSteps of them; otherwise the sentence that names the first bad one.
std::string timesProblem(const std::vector<double>& times);

/// "3.2 GB", "12.0 MB", "4.1 kB", "512 bytes": a size for messages, in the unit that reads.
std::string byteSize(double bytes);

/// Half the machine's physical memory: the default bound on a run's stored results.
double defaultResultBytesLimit();

/// Empty when `rows` rows of `perRow` numbers fit in `limitBytes` (0: the default); otherwise
/// the message that says how much they would take and what to change.
std::string resultSizeProblem(double rows, double perRow, double limitBytes, const std::string& remedy);

}  // namespace lw::analysis
