#include "events/event_log.h"

#include <vector>

#include <cstdio>

namespace lw::events {

std::string eventsToCsv(const std::vector<EventRecord>& events) {
  std::string out = "time,kind,contact,normal_velocity_before,normal_velocity_after,impulse,energy_before,energy_after,grazing\n";
  char buf[512];
  for (const EventRecord& e : events)
    for (std::size_t j = 0; j < e.contacts.size(); ++j) {
      std::snprintf(buf, sizeof buf, "%.17g,%s,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%d\n", e.t, e.kind.c_str(), e.contacts[j].c_str(),
                    e.normalBefore[j], e.normalAfter[j], e.impulse[j], e.energyBefore, e.energyAfter, e.grazing ? 1 : 0);
      out += buf;
    }
  return out;
}

std::string eventCounts(const std::vector<EventRecord>& events) {
  std::size_t impacts = 0, resting = 0, openings = 0, switches = 0;
  for (const auto& e : events) {
    if (e.kind == "switch") ++switches;
    else if (e.kind == "opens") ++openings;
    else ++impacts;
    if (e.kind == "closes") ++resting;
  }
  auto count = [](std::size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); };
  std::vector<std::string> parts;
  if (impacts > 0) parts.push_back(count(impacts, "impact", "impacts") + (resting > 0 ? " (" + std::to_string(resting) + " coming to rest)" : ""));
  if (openings > 0) parts.push_back(count(openings, "opening", "openings"));
  if (switches > 0) parts.push_back(count(switches, "switch", "switches"));
  std::string out;
  for (std::size_t k = 0; k < parts.size(); ++k) out += (k == 0 ? "" : k + 1 == parts.size() ? " and " : ", ") + parts[k];
  return out;
}

}  // namespace lw::events
