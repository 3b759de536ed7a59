#include "support/allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
// the thread that made the probe only: helper threads of libraries (ColPack's OpenMP pool) start
// and finish on their own schedule and would make the count depend on timing
thread_local bool t_counting = false;
std::atomic<std::size_t> g_count{0};

void* allocate(std::size_t n) {
  if (t_counting) g_count.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace lw::test {
CountAllocations::CountAllocations() {
  g_count = 0;
  t_counting = true;
}
CountAllocations::~CountAllocations() { t_counting = false; }
std::size_t CountAllocations::count() const { return g_count.load(); }
}  // namespace lw::test
