// Edits of the design parameters as the window makes them (issue 36): add, change (a rename's
// uses follow), delete (refused while used, or its uses replaced by its value), turn a field into
// a parameter (Make Design Parameter) and a link's length into one (Parameterise Length). Each is
// a function Mechanism → Mechanism like the sketch's edits (edits.h); the caller resolves the
// result before keeping it.
#pragma once

#include <string>
#include <vector>

#include "mechanism/edits.h"

namespace lw::edit {

/// Where parameter `name` is used directly: the paths of the fields, other parameters' values
/// ("parameters[2].value"), costs, tuning constraints and the study's choice of parameters.
std::vector<std::string> parameterUses(const Mechanism& m, const std::string& name);

/// Why `p` cannot be a parameter of `m` as it stands ("" if it can): its name (an identifier, not
/// "t", "pi" or a function, not another parameter's: `except` is its own old name), its range
/// (min below max) and its value within the range. Literal values only are range-checked.
std::string parameterProblem(const Mechanism& m, const Parameter& p, const std::string& except = {});

/// Adds a parameter; a fresh name ("p1", ...) when p.name is empty.
EditResult addParameter(Mechanism& m, Parameter p);
/// Replaces the named parameter's value, unit, range and description; a new name renames it and
/// every use follows (fields, other parameters, costs, constraints, the study's choices).
EditResult changeParameter(Mechanism& m, std::string name, Parameter p);
/// Deletes a parameter. While it is used, refused with the fields that use it, unless
/// `replaceUsesByValue`: each use then takes its value (a field that was just the name becomes a
/// literal number).
EditResult deleteParameter(Mechanism& m, std::string name, bool replaceUsesByValue);

/// A parameter name made from a field's path ("bodies[2].mass" of body "link2" → "link2_mass").
std::string parameterNameFor(const Mechanism& m, const std::string& path);
/// Make Design Parameter: the literal field at `path` becomes a new parameter with its value, the
/// unit of its quantity and a default range (half to one and a half times the value, rounded
/// outwards to two significant digits; ±1 around 0), and the field the parameter's name.
EditResult makeDesignParameter(Mechanism& m, const std::string& path);

/// Parameterise Length: the length of link `body` between its first two points becomes a
/// parameter ("link2_length", the default range as above); the second point (and the
/// centre of mass where it lies midway) become expressions of it, so that the link stays a
/// straight link of that length when the value changes.
EditResult parameteriseLength(Mechanism& m, std::string body);
/// The ground's link: the distance from ground point `from` to ground point `to` becomes a design
/// parameter ("ground_FROM_TO", its value the distance now, the default range), `to` written as
/// from + L·u along their present direction u; what is pinned at `to` follows it.
EditResult parameteriseGroundDistance(Mechanism& m, std::string from, std::string to);

}  // namespace lw::edit
