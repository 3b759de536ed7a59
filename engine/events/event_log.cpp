#include "events/event_log.h"

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

}  // namespace lw::events
