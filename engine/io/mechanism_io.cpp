#include "io/mechanism_io.h"

#include "io/files.h"
#include "io/json_document.h"
#include "io/mechanism_codec.h"
#include "mechanism/resolved.h"

namespace lw::io {

LoadResult loadMechanismFromString(std::string_view text) {
  LoadResult result;
  JsonDocument doc;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    result.diagnostics.push_back({Diagnostic::Severity::Error, "", "the file is empty", 1, 1});
    return result;
  }
  if (!parseJson(text, doc, result.diagnostics)) return result;
  Mechanism m = decodeMechanism(doc.root, result.diagnostics);
  if (!hasErrors(result.diagnostics)) resolve(m, result.diagnostics);
  for (auto& d : result.diagnostics)
    if (d.line == 0) doc.locate(d);
  if (!hasErrors(result.diagnostics)) result.mechanism = std::move(m);
  return result;
}

LoadResult loadMechanismFile(const std::string& path) {
  std::string text, err;
  if (!readFile(path, text, err)) {
    LoadResult r;
    r.ioError = true;
    r.diagnostics.push_back({Diagnostic::Severity::Error, "", err});
    return r;
  }
  return loadMechanismFromString(text);
}

std::string mechanismToString(const Mechanism& m) {
  std::string text;
  writeMechanism(m, [&](std::string_view piece) {
    text += piece;
    return true;
  });
  return text;
}

bool saveMechanismFile(const Mechanism& m, const std::string& path, std::string& error) {
  return writeFileAtomically(path, mechanismToString(m), error);
}

}  // namespace lw::io
