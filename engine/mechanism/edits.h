// Edits of a planar mechanism as the sketch view makes them (issue 5): ground pivots, links between
// points, crank drivers, moving and deleting. Each is a function Mechanism → Mechanism (the GUI
// pushes the before/after pair on its undo stack) and reports why it cannot be done. Geometry is
// read at the stored configuration of the resolved mechanism and written as literal numbers.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mechanism/mechanism.h"
#include "mechanism/resolved.h"

namespace lw::edit {

/// A named point of a body (body "ground" for the ground) at its world position.
struct SketchPoint {
  std::string body, point;
  Eigen::Vector2d at = Eigen::Vector2d::Zero();
  bool ground() const { return body == kGroundName; }
};

/// Every named point of a planar mechanism, at the stored configuration.
std::vector<SketchPoint> sketchPoints(const ResolvedMechanism& r);
/// The same for a sketch that does not resolve yet (only ground points, say): literal numbers only.
std::vector<SketchPoint> sketchPoints(const Mechanism& m);

/// The point nearest to `at` within `radius`, if any (of coincident points, the first listed).
std::optional<SketchPoint> nearestPoint(const std::vector<SketchPoint>& points, const Eigen::Vector2d& at, double radius);

/// Where points of two bodies (or a body and the ground) lie on each other without a joint between
/// them, directly or through other joints there: the drawing looks closed but is not (one place
/// each, within `tolerance`).
std::vector<Eigen::Vector2d> unjoinedCoincidences(const Mechanism& m, const std::vector<SketchPoint>& points, double tolerance);

/// A link end: an existing point (it gets a pin joint to the new link) or a free position.
struct LinkEnd {
  std::optional<SketchPoint> point;
  Eigen::Vector2d at = Eigen::Vector2d::Zero();
};

struct EditResult {
  bool ok = false;
  std::string error;        // why not
  std::string description;  // for the undo stack: "Add link link_3"
  std::string item;         // the item made (body, point or driver name)
};

/// Letters, digits and _, starting with a letter or _ (what names and expressions read).
bool validName(const std::string& s);
/// `stem` when `taken` does not know it, else the first of stem_2, stem_3, ... it does not.
std::string unusedName(const std::string& stem, const std::function<bool(const std::string&)>& taken);

/// A new empty planar mechanism (gravity −9.81 along y).
Mechanism emptyPlanar(const std::string& name);

/// Adds a ground point (a pivot for links drawn from it).
EditResult addGroundPoint(Mechanism& m, const Eigen::Vector2d& at);

/// Adds a straight link from a to b (1 kg/m, uniform bar) with pin joints at the ends that are
/// existing points. A free end that lands on nothing stays free.
EditResult addLink(Mechanism& m, const LinkEnd& a, const LinkEnd& b);

/// Adds a named point ("C1", ...) to a link at world position `at`: a coupler point, or a place to
/// pin another link. `r` is `m` resolved.
EditResult addBodyPoint(Mechanism& m, const ResolvedMechanism& r, const std::string& body, const Eigen::Vector2d& at);
/// The same in any dimension (a point picked on a body in the 3D view); `at` in world coordinates
/// of the stored configuration.
EditResult addPointAt(Mechanism& m, const ResolvedMechanism& r, const std::string& body, const Eigen::Vector3d& at);

/// Puts a slider block on point `p` of a link: the block is pinned to the link there and slides
/// on the ground along `direction` through p (a slider-crank's piston; x by default).
EditResult addSlider(Mechanism& m, const SketchPoint& p, const Eigen::Vector2d& direction = Eigen::Vector2d::UnitX());

/// Drives the pin between `body` and the ground at one turn per second; if it is driven already,
/// removes that driver instead (the Driver tool toggles).
EditResult addCrankDriver(Mechanism& m, std::string body);

/// Moves a point of the stored configuration: the ground point itself, or every body point joined
/// to it (the links change length). `r` is `m` resolved.
EditResult movePoint(Mechanism& m, const ResolvedMechanism& r, const SketchPoint& p, const Eigen::Vector2d& to);
/// The same for any body point in 2D or 3D: moves it (and the points joined to it) to world
/// position `to` in the stored configuration (z ignored in planar models).
EditResult movePointTo(Mechanism& m, const ResolvedMechanism& r, const std::string& body, const std::string& point,
                       const Eigen::Vector3d& to);
/// Turns a body's (or the ground's) vector to the world `direction` in the stored configuration,
/// together with the axes joints keep parallel to it (not a universal joint's, perpendicular).
EditResult turnVectorTo(Mechanism& m, const ResolvedMechanism& r, const std::string& body, const std::string& vector,
                        const Eigen::Vector3d& direction);

// ---- model edits shared with the Model menu (any dimension) ----

/// Adds a body ("body1", ...) at the origin, 1 kg, with a point "O" (and in 3D a vector "z").
EditResult addBody(Mechanism& m);
/// Adds a point ("P1", ...) at the body's origin; its coordinates are edited in the property editor.
EditResult addPoint(Mechanism& m, std::string body);
/// Adds a unit vector ("u1", ...) along z (x in 2D) to a body or the ground.
EditResult addVector(Mechanism& m, std::string body);
/// Adds a joint between two points (axes: one vector on each body, for the joints that need them).
EditResult addJoint(Mechanism& m, JointType type, const Ref& a, const Ref& b, const std::vector<Ref>& axes);
/// Changes a joint's type, points and axes in place (its name, and the drivers and forces that
/// name it, stay); whether the result is valid is the resolver's to say.
EditResult changeJoint(Mechanism& m, std::string joint, JointType type, const Ref& a, const Ref& b,
                       const std::vector<Ref>& axes);
/// Renames the item at `path` ("bodies[2]", "joints[0]", "bodies[1].points.B", "ground.points.A",
/// "drivers[0]", "forces[3]") and every reference to it. The new name must be a valid name; the
/// caller checks the result (resolve) for clashes.
EditResult renameItem(Mechanism& m, std::string path, std::string name);

// Names are taken by value: a caller's name is often the item's own (m.joints[i].name), which the
// edit erases or moves ("Delete joint B" of a chain described, and dropped the dependents of, C).

/// Deletes a joint and what refers to it (drivers, torsion springs, outputs...).
EditResult deleteJoint(Mechanism& m, std::string joint);

/// Deletes a body with its joints and everything that refers to them (drivers, forces, outputs...).
EditResult deleteBody(Mechanism& m, std::string body);
/// Deletes a ground point and the joints, drivers and forces on it.
EditResult deleteGroundPoint(Mechanism& m, std::string point);

// ---- drivers and forces (Model > Add Driver..., Add Force..., Change..., Delete) ----
// Whether the references hold (the joint exists, the points are on two bodies...) is the
// resolver's to say: the caller resolves a copy before keeping the edit.

/// Adds a driver; a fresh name ("motor1", ...) when d.name is empty.
EditResult addDriver(Mechanism& m, Driver d);
/// Replaces the named driver's type, references and function; its name stays.
EditResult changeDriver(Mechanism& m, std::string name, Driver d);
/// Deletes a driver and its effort outputs (and the costs on them).
EditResult deleteDriver(Mechanism& m, std::string name);
/// Adds a force element; a fresh name ("spring1", "force1", ...) when f.name is empty.
EditResult addForce(Mechanism& m, Force f);
/// Replaces the named force; its name stays. A spring that becomes another kind of force takes
/// its length outputs (and the costs on them) with it.
EditResult changeForce(Mechanism& m, std::string name, Force f);
/// Deletes a force and the outputs (and costs) that read it.
EditResult deleteForce(Mechanism& m, std::string name);

// ---- contacts and initial velocities (Model > Add Contact..., Set Initial Velocity...) ----

/// Adds a point-on-plane contact; a fresh name ("contact1", ...) when c.name is empty.
EditResult addContact(Mechanism& m, Contact c);
/// Replaces the named contact's point, plane, radius, law and restitution; its name stays.
EditResult changeContact(Mechanism& m, std::string name, Contact c);
EditResult deleteContact(Mechanism& m, std::string name);
/// Adds end stops on a joint's coordinate; a fresh name ("limit1", ...) when l.name is empty.
EditResult addLimit(Mechanism& m, JointLimit l);
/// Replaces the named limit's joint, bounds, law and restitution; its name stays.
EditResult changeLimit(Mechanism& m, std::string name, JointLimit l);
EditResult deleteLimit(Mechanism& m, std::string name);
/// Adds a switch of the equations of motion; a fresh name ("switch1", ...) when s.name is empty.
EditResult addSwitch(Mechanism& m, Switch s);
/// Replaces the named switch's watched coordinate, value, direction and forces; its name stays.
EditResult changeSwitch(Mechanism& m, std::string name, Switch s);
EditResult deleteSwitch(Mechanism& m, std::string name);
/// Adds an output (a column of every run, a variable of costs); a fresh name ("output1", ...)
/// when o.name is empty.
EditResult addOutput(Mechanism& m, Output o);
/// Replaces the named output's type and subject; its name stays.
EditResult changeOutput(Mechanism& m, std::string name, Output o);
/// Deletes an output and the costs that read it.
EditResult deleteOutput(Mechanism& m, std::string name);
/// What an initial velocity sets, for messages and the model tree: "joint crank",
/// "link2.P2.x" or "body link1".
std::string describe(const InitialVelocity& v);
/// Adds an initial velocity; one that sets the same joint, point component or body as an
/// existing one replaces it (two would contradict each other).
EditResult addInitialVelocity(Mechanism& m, InitialVelocity v);
/// Replaces (or, with `v` null, deletes) initial velocity number `index` (initial_velocities[index]).
EditResult changeInitialVelocity(Mechanism& m, std::size_t index, const InitialVelocity* v);

}  // namespace lw::edit
