// Reading and writing mechanism files (samples/FORMAT.md). Loading never half-loads: it returns
// a valid Mechanism, or diagnostics with line, column, JSON path and a sentence. Saving is atomic.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "io/files.h"

#include "mechanism/diagnostics.h"
#include "mechanism/mechanism.h"

namespace lw::io {

inline constexpr const char* kFormatName = "linkwright-mechanism";
inline constexpr int kFormatVersion = 1;

struct LoadResult {
  std::optional<Mechanism> mechanism;  // set only when there is no error
  Diagnostics diagnostics;             // errors and warnings, with line and column
  bool ioError = false;                // the file could not be read at all
  bool ok() const { return mechanism.has_value(); }
};

/// Parses and validates a mechanism from JSON text.
LoadResult loadMechanismFromString(std::string_view text);
/// Reads, parses and validates a file.
LoadResult loadMechanismFile(const std::string& path);

/// The canonical JSON text of a mechanism (what saveMechanismFile writes).
std::string mechanismToString(const Mechanism& m);
/// The same text in pieces to `sink` as they are made: the bodies and joints one at a time, so
/// that a generated mechanism of 10⁵ parts never has its whole JSON tree (ten times its text) in
/// memory. False when the sink refused a piece.
bool writeMechanism(const Mechanism& m, const std::function<bool(std::string_view)>& sink);

/// Writes the canonical text atomically (writeFileAtomically, io/files.h).
bool saveMechanismFile(const Mechanism& m, const std::string& path, std::string& error);

}  // namespace lw::io
