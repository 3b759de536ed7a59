// What happened at each event of a run: the event log of the results and of `--events`.
#pragma once

#include <string>
#include <vector>

namespace lw::events {

struct EventRecord {
  double t = 0;
  // "impact"; "closes": an impact that leaves a contact at rest (e = 0, then held closed);
  // "opens": a held contact whose force would pull lets go; "switch"
  std::string kind;
  std::vector<std::string> contacts;  // the contacts that closed together
  std::vector<double> normalBefore;   // ṙ⁻ of each (m/s: negative, closing)
  std::vector<double> normalAfter;    // ṙ⁺ = −e·ṙ⁻
  std::vector<double> impulse;        // P of each (Newton: N·s)
  double energyBefore = 0, energyAfter = 0;  // total mechanical energy (J)
  bool grazing = false;               // |ṙ⁻| at the noise level: the impact time's sensitivity is unbounded
};

/// CSV: time, kind, contact, normal velocity before and after, impulse, energy before and after,
/// grazing (one line per contact of an event).
std::string eventsToCsv(const std::vector<EventRecord>& events);
/// "24 impacts (2 coming to rest), 1 opening and 3 switches": what a run's summary says.
std::string eventCounts(const std::vector<EventRecord>& events);

}  // namespace lw::events
