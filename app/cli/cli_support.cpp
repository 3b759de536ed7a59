#include "cli_support.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace lw::cli {


// Number options that must be finite and above a bound (CLI11 would take "-1", "nan" or "inf" as
// they are, and the analysis would quietly fall back to the file's values)
CLI::Validator finiteAbove(double bound, bool inclusive, double below) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double v = 0;
        try {
          std::size_t used = 0;
          v = std::stod(text, &used);
          if (used != text.size()) return "'" + text + "' is not a number";
        } catch (const std::exception&) {
          return "'" + text + "' is not a number";
        }
        if (!std::isfinite(v)) return "must be a finite number, not " + text;
        if (inclusive ? v < bound : v <= bound)
          return "must be " + std::string(inclusive ? "at least " : "greater than ") + (bound == 0 ? "0" : text) + " (got " + text + ")";
        if (v >= below) return "must be less than " + std::to_string(static_cast<int>(below)) + " (got " + text + ")";
        return {};
      },
      inclusive ? "NUMBER >= 0" : "NUMBER > 0");
}

// An output path that is the input file would replace the mechanism with a table
bool outputIsInput(const std::string& out, const std::string& in) {
  if (out.empty() || out == "-" || !lw::io::sameFile(out, in)) return false;
  std::cerr << "linkwright-cli: the output '" << out << "' is the input file '" << in
            << "': it would be overwritten; choose another output file\n";
  return true;
}

bool outputPlaceExists(const std::string& out) {
  if (out.empty() || out == "-") return true;
  const std::filesystem::path dir = std::filesystem::absolute(out).parent_path();
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return true;
  std::cerr << "linkwright-cli: cannot write '" << out << "': the folder " << dir.string() << " does not exist\n";
  return false;
}

bool integratorApplies(lw::analysis::Formulation f, lw::analysis::Integrator i, bool given) {
  if (!lw::analysis::trapezoidalOnly(f) || i != lw::analysis::Integrator::RK45 || !given) return true;
  std::cerr << "linkwright-cli: the " << lw::analysis::toString(f)
            << " formulation integrates with the trapezoidal rule only: drop --integrator rk45, or use --formulation matrix-r\n";
  return false;
}

void printDiagnostics(const lw::Diagnostics& d, const std::string& file) {
  for (const auto& x : d) std::cerr << x.format(file) << "\n";
}

// Loads FILE (printing its diagnostics) and resolves it: kOk, or the exit code that says why not.
int loadResolved(const std::string& file, lw::io::LoadResult& r, std::optional<lw::ResolvedMechanism>& res) {
  r = lw::io::loadMechanismFile(file);
  printDiagnostics(r.diagnostics, file);
  if (!r.ok()) return r.ioError ? kIoError : kInvalidModel;
  lw::Diagnostics ignored;
  res = lw::resolve(*r.mechanism, ignored);
  return res ? kOk : kInternal;  // the loader has already resolved it once
}

// standard output for "" or "-", else an atomic write
int writeText(const std::string& out, const std::string& text) {
  if (out.empty() || out == "-") {
    std::cout << text << std::flush;
    return std::cout ? kOk : standardOutputFailed();
  }
  std::string err;
  if (!lw::io::writeFileAtomically(out, text, err)) {
    std::cerr << "linkwright-cli: " << err << "\n";
    return kIoError;
  }
  return kOk;
}

// in pieces as they are made (a generated grid of 10⁵ parts never has its whole text, nor its
// JSON tree, in memory); the file replaced only when all of it is written
int writeOut(const lw::Mechanism& m, const std::string& out) {
  std::cout.flush();
  lw::io::OutputFile file;
  std::string err;
  const bool ok = file.open(out, err) && lw::io::writeMechanism(m, [&](std::string_view piece) { return file.write(piece, err); }) &&
                  file.commit(err);
  if (ok) return kOk;
  std::cerr << "linkwright-cli: " << err << "\n";
  return kIoError;
}

int standardOutputFailed() {
  const int error = errno;
  std::cerr << "linkwright-cli: cannot write to standard output" << (error ? std::string(": ") + std::strerror(error) : std::string())
            << ": the output is lost\n";
  return kIoError;
}

int finishStandardOutput(int code) {
  errno = 0;
  std::cout.flush();
  const bool written = static_cast<bool>(std::cout) && std::fflush(stdout) == 0 && !std::ferror(stdout);
  if (written) return code;
  const int reported = standardOutputFailed();
  std::cout.clear();
  return code == kOk ? reported : code;
}

namespace {
// "a, b, c" of the first ten, "and N more" after them
template <class Items>
std::string someNames(const Items& items) {
  std::string known;
  std::size_t n = 0;
  for (const auto& item : items) {
    if (n < 10) known += (n ? ", " : "") + item.name;
    ++n;
  }
  if (n > 10) known += " and " + std::to_string(n - 10) + " more";
  return n ? known : "none";
}
}  // namespace

bool unknownNames(const lw::Mechanism& m, const std::vector<std::string>& parameters, const std::vector<std::string>& costs) {
  for (const auto& name : parameters)
    if (std::none_of(m.parameters.begin(), m.parameters.end(), [&](const auto& p) { return p.name == name; })) {
      std::cerr << "linkwright-cli: unknown parameter '" << name << "' (the file's parameters: " << someNames(m.parameters) << ")\n";
      return true;
    }
  for (const auto& name : costs)
    if (std::none_of(m.costs.begin(), m.costs.end(), [&](const auto& c) { return c.name == name; })) {
      std::cerr << "linkwright-cli: unknown cost '" << name << "' (the file's costs: " << someNames(m.costs) << ")\n";
      return true;
    }
  return false;
}

std::vector<std::string> commaList(const std::string& s) {
  std::vector<std::string> out;
  if (s.empty() || s == "all") return out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) {
    const auto first = item.find_first_not_of(" \t"), last = item.find_last_not_of(" \t");
    if (first != std::string::npos) out.push_back(item.substr(first, last - first + 1));
  }
  return out;
}

void printCostProblems(const std::string& file, const std::string& problems) {
  std::stringstream lines(problems);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) std::cerr << file << ": not evaluated: " << line << "\n";
}

}  // namespace lw::cli
