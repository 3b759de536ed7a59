// Counts heap allocations in a scope (in the spirit of Drake's LimitMalloc). The global operator
// new of the test binary is replaced in allocation_counter.cpp; counting is off unless a
// CountAllocations object is alive, and then only on the thread that made it.
#pragma once

#include <cstddef>

namespace lw::test {

class CountAllocations {
 public:
  CountAllocations();
  ~CountAllocations();
  std::size_t count() const;
};

}  // namespace lw::test
