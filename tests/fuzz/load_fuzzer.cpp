// libFuzzer harness for the mechanism loader: any input must give a Mechanism or diagnostics,
// never a crash, a hang or a sanitizer report; and what a valid load saves must load again.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "io/mechanism_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const lw::io::LoadResult r = lw::io::loadMechanismFromString(text);
  if (r.ok()) {
    const std::string saved = lw::io::mechanismToString(*r.mechanism);
    const lw::io::LoadResult again = lw::io::loadMechanismFromString(saved);
    if (!again.ok() || lw::io::mechanismToString(*again.mechanism) != saved) std::abort();
  } else if (r.diagnostics.empty()) {
    std::abort();  // a failed load must say why
  }
  return 0;
}
