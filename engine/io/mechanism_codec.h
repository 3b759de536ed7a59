// The mechanism file's JSON and the Mechanism, both ways (internal to io/): decoding checks every
// field and names the item and the reason of each problem; encoding writes the canonical layout
// (defaults omitted, literals as numbers, expressions as their text). mechanism_io.h is the API.
#pragma once

#include <vector>

#include "io/json_document.h"
#include "io/mechanism_io.h"
#include "mechanism/mechanism.h"

namespace lw::io {

/// The mechanism the JSON describes; problems go to `diagnostics` (errors leave it partial).
Mechanism decodeMechanism(const Json& root, std::vector<Diagnostic>& diagnostics);


}  // namespace lw::io
