// What the linkwright-cli commands share: exit codes, option checks, loading, atomic writes and
// the streamed CSV of a run's rows.
#pragma once

#include <CLI/CLI.hpp>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "outputs/csv.h"
#include "simulation/result_size.h"
#include "simulation/simulation_run.h"
#include "events/event_log.h"
#include "io/mechanism_io.h"
#include "mechanism/resolved.h"

namespace lw::cli {

enum Exit { kOk = 0, kInternal = 1, kUsage = 2, kInvalidModel = 3, kIoError = 4, kAnalysisFailed = 5 };

/// Number options that must be finite and above a bound (CLI11 would take "-1", "nan" or "inf" as
/// they are, and the analysis would quietly fall back to the file's values).
CLI::Validator finiteAbove(double bound, bool inclusive, double below = INFINITY);
/// An output path that is the input file would replace the mechanism with a table: refused, said.
bool outputIsInput(const std::string& out, const std::string& in);
void printDiagnostics(const lw::Diagnostics& d, const std::string& file);
/// Loads FILE (printing its diagnostics) and resolves it: kOk, or the exit code that says why not.
int loadResolved(const std::string& file, lw::io::LoadResult& r, std::optional<lw::ResolvedMechanism>& res);
/// The folder an output goes to exists (checked before a long run, not after it); "" and "-" are
/// standard output. False with the reason printed.
bool outputPlaceExists(const std::string& out);
/// The penalty formulation has the trapezoidal rule only: rk45 asked for it is refused, said.
bool integratorApplies(lw::analysis::Formulation f, lw::analysis::Integrator i, bool given);
/// Standard output for "" or "-", else an atomic write.
int writeText(const std::string& out, const std::string& text);
int writeOut(const lw::Mechanism& m, const std::string& out);
/// Standard output could not be written (a full disk, a closed pipe): said, kIoError.
int standardOutputFailed();
/// At exit: flushes standard output and checks that everything reached it; `code`, or kIoError
/// (said) when the command succeeded but its output was lost.
int finishStandardOutput(int code);
/// "a,b,c" as names, spaces around them dropped; "" or "all": none (every one).
std::vector<std::string> commaList(const std::string& s);
/// Names given with --parameters or --costs that the file does not have: said (a usage error, exit
/// 2, before any work), true.
bool unknownNames(const lw::Mechanism& m, const std::vector<std::string>& parameters, const std::vector<std::string>& costs);
/// The costs a run could not evaluate, one line each ("FILE: not evaluated: cost 'E': ...").
void printCostProblems(const std::string& file, const std::string& problems);

// A CSV written as the run's rows come (flat memory however long the run): opened before the run
// (a bad path is reported before any work), the header with the first block, and the target
// replaced only at the end, when there was at least one row.
// A run whose file would not fit on the disk is stopped after its first block of rows, with the
// numbers (the rows are the run's, their size the first block's).
class CsvStream {
 public:
  /// `plannedRows`: how many rows the run will write
  bool open(const std::string& out, double plannedRows) {
    plannedRows_ = plannedRows;
    start_ = std::chrono::steady_clock::now();
    if (!out.empty() && out != "-") {
      struct statvfs fs {};
      const std::filesystem::path dir = std::filesystem::absolute(out).parent_path();
      if (::statvfs(dir.c_str(), &fs) == 0) freeBytes_ = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
    }
    if (file_.open(out, error_)) return true;
    std::cerr << "linkwright-cli: " << error_ << "\n";
    return false;
  }
  const std::atomic<bool>* cancel() const { return &stop_; }
  /// The run was stopped because its file would not fit (finish() says so)
  bool refused() const { return failed_ && !checked_; }
  lw::analysis::RowSink sink() {
    return [this](const std::vector<std::string>& columns, std::span<const double> rows) {
      if (failed_) return;
      if (!header_) lw::analysis::appendCsvHeader(columns, buffer_);
      const std::size_t headerBytes = header_ ? 0 : buffer_.size();
      header_ = true;
      lw::analysis::appendCsvRows(columns.size(), rows, buffer_);
      const double perRow = static_cast<double>(buffer_.size() - headerBytes) / std::max<double>(1.0, static_cast<double>(rows.size() / columns.size()));
      if (!checked_ && freeBytes_ > 0 && plannedRows_ * perRow > freeBytes_) {
        error_ = "the CSV would take about " + lw::analysis::byteSize(plannedRows_ * perRow) + " (" + std::to_string(std::llround(plannedRows_)) +
                 " rows of about " + std::to_string(std::llround(perRow)) + " bytes), more than the " + lw::analysis::byteSize(freeBytes_) +
                 " free where it goes: write fewer rows (--output-dt), or shorten the run";
        failed_ = true;
        stop_ = true;
        return;
      }
      rowsWritten_ += static_cast<double>(rows.size() / columns.size());
      announceDuration(perRow);
      checked_ = true;
      failed_ = !file_.write(buffer_, error_);
      stop_ = failed_.load();
      buffer_.clear();
    };
  }
  /// kOk, or kIoError with the message printed
  int finish(std::size_t rows) {
    if (!failed_ && rows > 0 && file_.commit(error_)) return kOk;
    if (failed_ && !checked_) {  // refused before any row was written: the reason, not a cancellation
      std::cerr << "linkwright-cli: " << error_ << "\n";
      file_.abandon();
      return kAnalysisFailed;
    }
    file_.abandon();
    if (!failed_ && rows == 0) return kOk;  // nothing computed: the failure's message says it all
    std::cerr << "linkwright-cli: " << error_ << "\n";
    return kIoError;
  }

 private:
  // A long run is announced once, from the rate of its rows after the first block (which carries
  // the start's assembly and set-up, not the rate of the steps), as soon as a second has passed
  void announceDuration(double perRow) {
    const auto now = std::chrono::steady_clock::now();
    if (!checked_) {
      firstBlock_ = now;
      rowsAtFirstBlock_ = rowsWritten_;
      return;
    }
    if (announced_) return;
    const double seconds = std::chrono::duration<double>(now - firstBlock_).count();
    const double rows = rowsWritten_ - rowsAtFirstBlock_;
    if (seconds < 1 || rows <= 0) return;
    announced_ = true;
    const double total = std::chrono::duration<double>(now - start_).count() + seconds * (plannedRows_ - rowsWritten_) / rows;
    if (total > 60)
      std::cerr << "linkwright-cli: note: at the rate of its rows so far this run will take about "
                << (total > 7200 ? std::to_string(std::llround(total / 3600)) + " h" : std::to_string(std::llround(total / 60)) + " min")
                << " and write " << lw::analysis::byteSize(plannedRows_ * perRow) << "\n";
  }
  lw::io::OutputFile file_;
  std::string buffer_, error_;
  bool header_ = false, checked_ = false, announced_ = false;
  double rowsWritten_ = 0, rowsAtFirstBlock_ = 0;
  std::chrono::steady_clock::time_point firstBlock_;
  std::atomic<bool> failed_ = false, stop_ = false;
  double plannedRows_ = 0, freeBytes_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace lw::cli
