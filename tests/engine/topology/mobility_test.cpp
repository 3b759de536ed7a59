#include "topology/mobility.h"

#include <gtest/gtest.h>

#include "io/mechanism_io.h"

namespace lw {
namespace {

topology::Mobility mobilityOf(const std::string& sample) {
  auto r = io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/" + sample + ".json");
  if (!r.ok()) throw std::runtime_error(sample + " does not load");
  Diagnostics d;
  return topology::grueblerKutzbach(*resolve(*r.mechanism, d));
}

TEST(Mobility, GrueblerKutzbachOfTheSamples) {
  struct Case {
    const char* sample;
    int gk;
    int remaining;
  };
  const Case cases[] = {
      {"four-bar", 1, 0},        {"slider-crank", 1, 0}, {"watt-six-bar", 1, 0},
      {"stephenson-six-bar", 1, 0}, {"jansen-leg", 1, 0},   {"five-bar", 2, 2},
      {"ten-bar-chain", 10, 10}, {"bouncing-ball", 3, 3},
      {"rssr", 2, 1},            // the coupler's spin is a passive freedom
      {"spatial-four-bar", 1, 1}, {"spatial-four-bar-swing", 1, 1},
      {"four-bar-free", -2, -2},  // a planar loop of spatial revolutes: 3 redundant equations
  };
  for (const auto& c : cases) {
    const auto m = mobilityOf(c.sample);
    EXPECT_EQ(m.grueblerKutzbach, c.gk) << c.sample << ": " << m.formula;
    EXPECT_EQ(m.remaining, c.remaining) << c.sample;
  }
}

}  // namespace
}  // namespace lw
