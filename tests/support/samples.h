// The shipped samples (and a few generated mechanisms) loaded for tests.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "io/mechanism_io.h"
#include "mechanism/generators.h"

namespace lw::test {

/// A shipped sample by file stem ("four-bar"); throws when it does not load.
inline Mechanism sampleMechanism(const std::string& name) {
  auto r = io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/" + name + ".json");
  if (!r.ok()) throw std::runtime_error(name + ".json does not load");
  return *r.mechanism;
}

/// A shipped sample, resolved.
inline ResolvedMechanism sampleResolved(const std::string& name) {
  Diagnostics d;
  return *resolve(sampleMechanism(name), d);
}

/// Every sample that loads, by file stem, plus the generated spatial crank-slider and a small grid.
inline std::vector<std::pair<std::string, Mechanism>> samplesAndGenerated() {
  std::vector<std::pair<std::string, Mechanism>> out;
  for (const auto& e : std::filesystem::directory_iterator(LW_SAMPLES_DIR)) {
    if (e.path().extension() != ".json") continue;
    auto r = io::loadMechanismFile(e.path().string());
    if (r.ok()) out.emplace_back(e.path().stem().string(), *r.mechanism);
  }
  out.emplace_back("crank-slider-3d", generate::crankSlider3d(2));
  out.emplace_back("grid-2x3", generate::grid(2, 3));
  return out;
}

}  // namespace lw::test
