// JSON parsing that remembers where every value starts, so that problems found later (a negative
// mass, an unknown reference) can be reported by line and column. Internal to io/: this header
// pulls in nlohmann/json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>

#include "mechanism/diagnostics.h"

namespace lw::io {

using Json = nlohmann::ordered_json;  // keeps the key order of the file

struct JsonDocument {
  Json root;
  std::string_view text;

  /// Line and column (1-based) of the value at `path`, or of its nearest recorded parent. The
  /// first call parses the text once more to learn where every value starts (a file without
  /// problems never pays for it).
  void locate(Diagnostic& d) const;

  // filled by locate()'s pass (the parser's business only)
  mutable bool located_ = false;
  mutable std::unordered_map<std::string, std::size_t> offsets;     // JSON path -> byte offset of its value
  mutable std::unordered_map<std::string, std::size_t> keyOffsets;  // JSON path -> byte offset of its key
};

/// Parses `text` (which must outlive the document). On a syntax error returns false and appends
/// one diagnostic with its line and column. Duplicate keys are errors.
bool parseJson(std::string_view text, JsonDocument& doc, Diagnostics& out);

/// Line and column (1-based) of a byte offset.
void lineColumn(std::string_view text, std::size_t offset, int& line, int& column);

/// Canonical layout: two-space indent, arrays and small flat objects on one line when they fit
/// in 100 columns, numbers in shortest round-trip form, integral values without ".0".
std::string formatJson(const Json& j);
/// The same layout appended to `out`, for a value written at `column` whose block is indented
/// `indent` (an item of a large array written one at a time).
void formatJsonInto(const Json& j, std::string& out, int indent, std::size_t column);

}  // namespace lw::io
