// Sketch edits (issue 5): a four-bar drawn from scratch has 1 DOF with its crank driven and
// decomposes into {crank}{RRR dyad}; dragging the crank solves like the global solver; moving a
// point changes the links; deleting cleans up everything that referred to the item.
#include "mechanism/edits.h"

#include <gtest/gtest.h>

#include <numbers>
#include <random>

#include "simulation/crank_drag.h"
#include "simulation/kinematics_run.h"
#include "io/mechanism_io.h"
#include "kinematics/global_solver.h"
#include "topology/mobility.h"
#include "kinematics/structural_groups.h"
#include "support/samples.h"
#include "support/sketches.h"

namespace lw::edit {
namespace {

// ground pivots A (0, 0), D (4, 0); crank A–B, coupler B–C, rocker C–D
Mechanism drawFourBar() { return test::drawnFourBar({0.5, 0.8660254037844386}, {3.5, 2.0}); }

TEST(SketchEdits, AFourBarDrawnFromScratchHasOneDofAndTwoGroups) {
  const Mechanism m = drawFourBar();
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r.has_value()) << (d.empty() ? "" : d[0].format());
  EXPECT_EQ(r->joints.size(), 4u);
  const auto mob = topology::grueblerKutzbach(*r);
  EXPECT_EQ(mob.grueblerKutzbach, 1);
  const kin::NaturalModel nm = kin::compileNaturalModel(*r);
  const auto groups = kin::decompose(nm);
  ASSERT_TRUE(groups.ok) << groups.error;
  EXPECT_EQ(kin::describe(groups, *r), "{link1} {link2, link3}");
  EXPECT_EQ(groups.groups[0].name, "crank");
  EXPECT_EQ(groups.groups[1].name, "RRR dyad");
}

// a pivot at the origin, a crank to (0.3, 0.4) and a rod on to (2.2, 0): a slider-crank without its slider
Mechanism crankAndRod(const std::string& name) {
  Mechanism m = emptyPlanar(name);
  EXPECT_TRUE(addGroundPoint(m, {0, 0}).ok);
  auto at = [&](const Eigen::Vector2d& p) { return nearestPoint(sketchPoints(m), p, 1e-6); };
  EXPECT_TRUE(addLink(m, {at({0, 0}), {}}, {std::nullopt, {0.3, 0.4}}).ok);
  EXPECT_TRUE(addLink(m, {at({0.3, 0.4}), {}}, {std::nullopt, {2.2, 0.0}}).ok);
  return m;
}

// a guide at 30°: its own ground direction (the block's parallel), and the block stays on the line
// through the point at that angle while the crank turns round
TEST(SketchEdits, ASliderGuideCanTakeAnyDirection) {
  Mechanism m = crankAndRod("inclined");
  auto at = [&](const Eigen::Vector2d& p) { return nearestPoint(sketchPoints(m), p, 1e-6); };
  const Eigen::Vector2d u(std::cos(std::numbers::pi / 6), std::sin(std::numbers::pi / 6));
  EXPECT_FALSE(addSlider(m, *at({2.2, 0.0}), Eigen::Vector2d::Zero()).ok);
  const EditResult e = addSlider(m, *at({2.2, 0.0}), 3 * u);
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_NE(e.description.find("30°"), std::string::npos) << e.description;
  ASSERT_EQ(m.ground.vectors.size(), 1u);
  EXPECT_EQ(m.joints.back().axes[0].item, m.ground.vectors[0].name);
  EXPECT_NEAR(m.ground.vectors[0].value[0].value, u.x(), 1e-15);
  EXPECT_NEAR(m.ground.vectors[0].value[1].value, u.y(), 1e-15);
  ASSERT_TRUE(addCrankDriver(m, "link1").ok);
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r.has_value()) << (d.empty() ? "" : d[0].format());
  EXPECT_TRUE(d.empty()) << d[0].format();  // the two axes are parallel: no warning
  auto drag = analysis::CrankDrag::create(m, nullptr);
  ASSERT_TRUE(drag);
  const int block = static_cast<int>(r->bodies.size()) - 1;
  for (double angle : {1.0, 2.5, 4.0, 5.5}) {
    ASSERT_TRUE(drag->solve(angle).ok()) << angle;
    const double* pose = &drag->poses()[12 * static_cast<std::size_t>(block)];  // R row-major, then x
    const Eigen::Vector2d P(pose[9], pose[10]);
    const Eigen::Vector2d off = P - Eigen::Vector2d(2.2, 0.0);
    EXPECT_NEAR(off.x() * u.y() - off.y() * u.x(), 0.0, 1e-9) << "the block left its 30° guide at " << angle;
  }
}

TEST(SketchEdits, ASliderCrankDrawnFromScratchHasACrankAndAnRrpDyad) {
  Mechanism m = crankAndRod("slider-crank");
  auto at = [&](const Eigen::Vector2d& p) { return nearestPoint(sketchPoints(m), p, 1e-6); };
  const auto end = at({2.2, 0.0});
  ASSERT_TRUE(end && !end->ground());
  ASSERT_TRUE(addSlider(m, *end).ok);
  const EditResult twice = addSlider(m, *end);
  EXPECT_FALSE(twice.ok);
  EXPECT_EQ(twice.error, "'link2.P2' is already held by the ground");
  ASSERT_TRUE(addCrankDriver(m, "link1").ok);
  // the driver tool toggles: a second click takes the driver off, a third puts it back
  ASSERT_TRUE(addCrankDriver(m, "link1").ok);
  EXPECT_TRUE(m.drivers.empty());
  ASSERT_TRUE(addCrankDriver(m, "link1").ok);
  EXPECT_EQ(m.drivers.size(), 1u);
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r.has_value()) << (d.empty() ? "" : d[0].format());
  EXPECT_EQ(topology::grueblerKutzbach(*r).grueblerKutzbach, 1);
  const auto groups = kin::decompose(kin::compileNaturalModel(*r));
  ASSERT_TRUE(groups.ok) << groups.error;
  ASSERT_EQ(groups.groups.size(), 2u);
  EXPECT_EQ(groups.groups[0].name, "crank");
  EXPECT_EQ(groups.groups[1].name, "RRP dyad");
  auto drag = analysis::CrankDrag::create(m, nullptr);
  ASSERT_TRUE(drag);
  EXPECT_TRUE(drag->solve(3.0).ok());  // the slider follows the crank round
}

TEST(SketchEdits, DraggingTheCrankSolvesLikeTheGlobalSolver) {
  const Mechanism m = drawFourBar();
  std::string why;
  auto drag = analysis::CrankDrag::create(m, &why);
  ASSERT_TRUE(drag) << why;
  // the same mechanism driven at "t" = angle, solved globally at the same angle
  Mechanism g = m;
  g.drivers[0].function = Number::expr("t");
  Diagnostics d;
  const auto r = resolve(g, d);
  const kin::NaturalModel nm = kin::compileNaturalModel(*r);
  kin::GlobalData global(nm);
  ASSERT_TRUE(kin::assemble(nm, global, 0).ok());
  for (double angle : {0.3, 1.0, 2.5, 4.0, 6.0}) {
    ASSERT_TRUE(drag->solve(angle).ok()) << angle;
    for (double t = global.t; t < angle - 1e-12;) {  // the global solver walks there too (branch)
      t = std::min(angle, t + 0.05);
      ASSERT_TRUE(kin::solveStep(nm, global, t).ok());
    }
    std::vector<double> poses;
    analysis::appendPoses(*r, nm, global.q, poses);
    ASSERT_EQ(poses.size(), drag->poses().size());
    for (std::size_t i = 0; i < poses.size(); ++i) EXPECT_NEAR(drag->poses()[i], poses[i], 1e-9) << angle;
  }
  // the crank link turns by the angle: B = A + R(60° + angle)·(1, 0)
  const double* crank = &drag->poses()[12];
  EXPECT_NEAR(crank[0], std::cos(std::numbers::pi / 3 + 6.0), 1e-9);
}

TEST(SketchEdits, CouplerCurvesCoverAFullTurnOfAGrashofCrank) {
  Mechanism m = drawFourBar();
  // a coupler point on link2
  m.bodies[1].points.push_back({"P", {Number(1.0), Number(1.0)}});
  auto drag = analysis::CrankDrag::create(m, nullptr);
  ASSERT_TRUE(drag);
  const auto curves = drag->couplerCurves(90);
  ASSERT_EQ(curves.size(), 1u);
  EXPECT_EQ(curves[0].size(), 91u);
  EXPECT_LT((curves[0].front() - curves[0].back()).norm(), 1e-9);  // a closed curve
}

TEST(SketchEdits, MovingAPivotStretchesTheLinksAndDeletingCleansUp) {
  Mechanism m = drawFourBar();
  Diagnostics d;
  auto r = resolve(m, d);
  const auto pivot = nearestPoint(sketchPoints(*r), {4, 0}, 1e-6);
  ASSERT_TRUE(pivot && pivot->ground());
  ASSERT_TRUE(movePoint(m, *r, *pivot, {5, 0}).ok);
  r = resolve(m, d);
  ASSERT_TRUE(r.has_value());
  // the rocker's point that was at D moved with it
  bool found = false;
  for (const auto& p : sketchPoints(*r))
    if (p.body == "link3" && (p.at - Eigen::Vector2d(5, 0)).norm() < 1e-12) found = true;
  EXPECT_TRUE(found);
  // deleting the crank removes its joint and the driver on it
  ASSERT_TRUE(deleteBody(m, "link1").ok);
  EXPECT_TRUE(m.drivers.empty());
  EXPECT_EQ(m.joints.size(), 2u);
  Diagnostics after;
  EXPECT_TRUE(resolve(m, after).has_value()) << (after.empty() ? "" : after[0].format());
  EXPECT_EQ(addCrankDriver(m, "link2").error,
            "'link2' has no pin to the ground: only a link pinned to the ground can be a crank");  // no pin any more
  EXPECT_EQ(addLink(m, {std::nullopt, {1, 1}}, {std::nullopt, {1, 1}}).error, "a link needs two distinct ends");
}

// turning a joint axis turns the axis parallel to it on the other body (revolute D: ground.y and
// follower.y), but not across a universal joint (crank.x and rod.a2 stay perpendicular ones)
TEST(SketchEdits, TurningAnAxisKeepsItsJointsAxesParallel) {
  auto loaded = io::loadMechanismFile(std::string(LW_SAMPLES_DIR) + "/spatial-four-bar-swing.json");
  ASSERT_TRUE(loaded.ok());
  Mechanism m = *loaded.mechanism;
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r.has_value());
  const double a = 20 * std::numbers::pi / 180;
  const Eigen::Vector3d u(0, std::cos(a), std::sin(a));
  const EditResult e = turnVectorTo(m, *r, "follower", "y", 2 * u);
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_NE(e.description.find("parallel"), std::string::npos) << e.description;
  auto vec = [&](const std::vector<NamedVector>& vs, const std::string& name) {
    for (const auto& v : vs)
      if (v.name == name) return Eigen::Vector3d(v.value[0].value, v.value[1].value, v.value[2].value);
    return Eigen::Vector3d::Constant(NAN).eval();
  };
  Diagnostics d2;
  const auto r2 = resolve(m, d2);
  ASSERT_TRUE(r2.has_value());
  const auto& follower = r2->bodies[3];
  EXPECT_LT((follower.rotation * vec(m.bodies[2].vectors, "y") - u).norm(), 1e-12);
  EXPECT_LT((vec(m.ground.vectors, "y") - u).norm(), 1e-12);
  for (const auto& x : d2) EXPECT_EQ(x.path.find("joints[3]"), std::string::npos) << x.format();  // D's axes parallel
  // the crank's axis turns the ground's x with it (revolute A), not the rod's a2 (universal B)
  const Eigen::Vector3d a2 = vec(m.bodies[1].vectors, "a2");
  ASSERT_TRUE(turnVectorTo(m, *r2, "crank", "x", Eigen::Vector3d(1, 0.1, 0)).ok);
  EXPECT_LT((vec(m.ground.vectors, "x") - Eigen::Vector3d(1, 0.1, 0).normalized()).norm(), 1e-12);
  EXPECT_EQ(vec(m.bodies[1].vectors, "a2"), a2) << "not across the universal joint";
  EXPECT_FALSE(turnVectorTo(m, *r2, "crank", "x", Eigen::Vector3d::Zero()).ok);
  EXPECT_FALSE(turnVectorTo(m, *r2, "crank", "nothing", Eigen::Vector3d::UnitX()).ok);
}

// bad moves and joint changes are refused with the item and the reason, the model untouched
// The name given is often the item's own, which the edit erases: "Delete joint B" of a chain was
// described as, and dropped the dependents of, the joint after it
TEST(SketchEdits, DeletingAnItemByItsOwnNameDeletesThatItemOnly) {
  Mechanism m = test::sampleMechanism("four-bar");
  const std::string first = m.joints[0].name, second = m.joints[1].name;
  const std::size_t drivers = m.drivers.size();
  const EditResult r = deleteJoint(m, m.joints[1].name);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.description, "Delete joint " + second);
  EXPECT_EQ(m.joints[0].name, first);
  EXPECT_EQ(m.drivers.size(), drivers) << "the crank's driver is not the deleted joint's";
  Mechanism f = test::sampleMechanism("five-bar");
  ASSERT_GE(f.forces.size(), 2u);
  const std::string force = f.forces[0].name;
  EXPECT_EQ(deleteForce(f, f.forces[0].name).description, "Delete force " + force);
}

TEST(SketchEdits, BadMovesAndJointChangesAreRefusedWithTheReason) {
  Mechanism m = crankAndRod("bad");
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r.has_value());
  const Mechanism before = m;
  EditResult e = movePointTo(m, *r, "link1", "P2", Eigen::Vector3d(NAN, 0, 0));
  EXPECT_FALSE(e.ok);
  EXPECT_EQ(e.error, "the new position of 'link1.P2' is not a finite point");
  e = movePointTo(m, *r, "link1", "Q", Eigen::Vector3d::Zero());
  EXPECT_FALSE(e.ok);
  EXPECT_EQ(e.error, "there is no point 'link1.Q'");
  e = changeJoint(m, "nothing", JointType::Pin, {"link1", "P1"}, {"ground", "O1"}, {});
  EXPECT_FALSE(e.ok);
  EXPECT_EQ(e.error, "there is no joint 'nothing'");
  // deleting what is not there says so the same way
  EXPECT_EQ(deleteJoint(m, "nothing").error, "there is no joint 'nothing'");
  EXPECT_EQ(deleteBody(m, "nothing").error, "there is no body 'nothing'");
  EXPECT_EQ(deleteGroundPoint(m, "nothing").error, "there is no ground point 'nothing'");
  EXPECT_EQ(addPoint(m, "nothing").error, "there is no body 'nothing'");
  e = changeJoint(m, m.joints[0].name, JointType::Pin, {"link1", "P1"}, {"link1", "P2"}, {});
  EXPECT_FALSE(e.ok);
  EXPECT_EQ(e.error, "both points are on 'link1': a joint connects two bodies");
  EXPECT_EQ(m.joints[0].points[0], before.joints[0].points[0]);
  EXPECT_EQ(m.bodies[0].points[1].value[0].value, before.bodies[0].points[1].value[0].value);
}

// drivers and forces are added, changed and deleted by name; the decomposition follows the driver
// to the rocker; a spring's length output goes with it; bad references are the resolver's to name
TEST(SketchEdits, DriversAndForcesAreAddedChangedAndDeleted) {
  Mechanism m = drawFourBar();
  std::string rockerPivot;
  for (const auto& j : m.joints)
    if (j.points[0].body == "link3" || j.points[1].body == "link3")
      if (j.points[0].body == kGroundName || j.points[1].body == kGroundName) rockerPivot = j.name;
  ASSERT_FALSE(rockerPivot.empty());
  Driver d;
  d.type = Driver::Type::Joint;
  d.joint = rockerPivot;
  d.function = Number::expr("pi*t");
  ASSERT_TRUE(changeDriver(m, "motor1", d).ok);
  EXPECT_EQ(m.drivers[0].name, "motor1");
  {
    Diagnostics diag;
    const auto r = resolve(m, diag);
    ASSERT_TRUE(r.has_value()) << (diag.empty() ? "" : diag[0].format());
    const auto groups = kin::decompose(kin::compileNaturalModel(*r));
    ASSERT_TRUE(groups.ok) << groups.error;
    EXPECT_EQ(kin::describe(groups, *r), "{link3} {link1, link2}");
  }
  Force f;
  f.type = Force::Type::Spring;
  f.points[0] = {kGroundName, "O1"};
  f.points[1] = {"link2", "P2"};
  f.stiffness = 100;
  f.naturalLength = 1;
  const EditResult added = addForce(m, f);
  ASSERT_TRUE(added.ok);
  EXPECT_EQ(added.item, "spring1");
  Output o;
  o.name = "stretch";
  o.type = Output::Type::SpringLength;
  o.spring = "spring1";
  m.outputs.push_back(o);
  {
    Diagnostics diag;
    ASSERT_TRUE(resolve(m, diag).has_value()) << (diag.empty() ? "" : diag[0].format());
  }
  Force push;
  push.type = Force::Type::PointForce;
  push.point = {"link2", "P2"};
  push.value = {Number(0), Number::expr("-10*t")};
  ASSERT_TRUE(changeForce(m, "spring1", push).ok);
  EXPECT_EQ(m.forces[0].type, Force::Type::PointForce);
  EXPECT_TRUE(m.outputs.empty()) << "the spring's length output should go with the spring";
  {
    Diagnostics diag;
    ASSERT_TRUE(resolve(m, diag).has_value()) << (diag.empty() ? "" : diag[0].format());
  }
  ASSERT_TRUE(deleteForce(m, "spring1").ok);
  EXPECT_TRUE(m.forces.empty());
  ASSERT_TRUE(deleteDriver(m, "motor1").ok);
  EXPECT_TRUE(m.drivers.empty());
  // refused, with the reason
  EXPECT_EQ(changeDriver(m, "motor1", d).error, "there is no driver 'motor1'");
  EXPECT_EQ(deleteForce(m, "spring1").error, "there is no force 'spring1'");
  EXPECT_EQ(changeForce(m, "x", push).error, "there is no force 'x'");
  // a driver of a joint that does not exist: the resolver names the driver and the joint
  Driver bad;
  bad.type = Driver::Type::Joint;
  bad.joint = "nothing";
  bad.function = Number::expr("t");
  ASSERT_TRUE(addDriver(m, bad).ok);
  Diagnostics diag;
  EXPECT_FALSE(resolve(m, diag).has_value());
  ASSERT_FALSE(diag.empty());
  EXPECT_NE(diag[0].format().find("nothing"), std::string::npos) << diag[0].format();
  EXPECT_NE(diag[0].format().find("drivers[0]"), std::string::npos) << diag[0].format();
}

// a contact is added, changed and deleted by name; the resolver names a bad restitution
TEST(SketchEdits, ContactsAreAddedChangedAndDeleted) {
  Mechanism m = test::sampleMechanism("bouncing-ball");
  Contact wall = m.contacts[0];
  wall.name.clear();
  wall.restitution = 0.5;
  const EditResult added = addContact(m, wall);
  ASSERT_TRUE(added.ok);
  EXPECT_EQ(added.item, "contact1");
  EXPECT_EQ(added.description, "Add contact contact1 (ball.C)");
  {
    Diagnostics diag;
    const auto r = resolve(m, diag);
    ASSERT_TRUE(r.has_value()) << (diag.empty() ? "" : diag[0].format());
    ASSERT_EQ(r->contacts.size(), 2u);
    EXPECT_DOUBLE_EQ(r->contacts[1].restitution, 0.5);
  }
  wall.restitution = 1.5;
  ASSERT_TRUE(changeContact(m, "contact1", wall).ok);
  EXPECT_EQ(m.contacts[1].name, "contact1");
  {
    Diagnostics diag;
    EXPECT_FALSE(resolve(m, diag).has_value());
    ASSERT_FALSE(diag.empty());
    EXPECT_EQ(diag[0].path, "contacts[1].restitution");
    EXPECT_NE(diag[0].message.find("between 0 and 1 (found 1.5)"), std::string::npos) << diag[0].message;
  }
  ASSERT_TRUE(deleteContact(m, "contact1").ok);
  EXPECT_EQ(m.contacts.size(), 1u);
  EXPECT_EQ(deleteContact(m, "contact1").error, "there is no contact 'contact1'");
}

// initial velocities: one per joint, point component or body (a second replaces the first),
// changed and deleted by number, read by the resolver
TEST(SketchEdits, InitialVelocitiesAreSetChangedAndDeleted) {
  Mechanism m = test::sampleMechanism("four-bar");
  InitialVelocity crank;
  crank.type = InitialVelocity::Type::Joint;
  crank.joint = "A";
  crank.value = 2;
  EXPECT_EQ(addInitialVelocity(m, crank).description, "Set initial velocity of joint A");
  crank.value = Number::expr("2*pi");
  EXPECT_EQ(addInitialVelocity(m, crank).description, "Change initial velocity of joint A");
  ASSERT_EQ(m.initialVelocities.size(), 1u);
  InitialVelocity point;
  point.type = InitialVelocity::Type::PointComponent;
  point.point = {"coupler", "P"};
  point.component = Component::Y;
  point.value = 0.5;
  EXPECT_EQ(addInitialVelocity(m, point).item, "coupler.P.y");
  ASSERT_EQ(m.initialVelocities.size(), 2u);
  {
    Diagnostics diag;
    const auto r = resolve(m, diag);
    ASSERT_TRUE(r.has_value()) << (diag.empty() ? "" : diag[0].format());
    ASSERT_EQ(r->initialRates.size(), 2u);
    EXPECT_NEAR(r->initialRates[0].value, 2 * std::numbers::pi, 1e-15);
    EXPECT_EQ(r->initialRates[0].joint, 0);
    EXPECT_EQ(r->initialRates[1].component, 1);
  }
  InitialVelocity body;
  body.type = InitialVelocity::Type::Body;
  body.body = "ground";
  body.angularVelocity = {Number(1)};
  ASSERT_TRUE(changeInitialVelocity(m, 1, &body).ok);
  {
    Diagnostics diag;
    EXPECT_FALSE(resolve(m, diag).has_value());
    ASSERT_FALSE(diag.empty());
    EXPECT_EQ(diag[0].format(), "initial_velocities[1].body: the ground does not move");
  }
  const EditResult removed = changeInitialVelocity(m, 1, nullptr);
  ASSERT_TRUE(removed.ok);
  EXPECT_EQ(removed.description, "Delete initial velocity of body ground");
  EXPECT_EQ(m.initialVelocities.size(), 1u);
  EXPECT_EQ(changeInitialVelocity(m, 3, nullptr).error, "there is no initial velocity number 4");
}

TEST(SketchEdits, RenamingUpdatesEveryReference) {
  Mechanism m = drawFourBar();
  ASSERT_TRUE(renameItem(m, "bodies[0]", "crank").ok);
  ASSERT_TRUE(renameItem(m, "joints[0]", "A").ok);
  ASSERT_TRUE(renameItem(m, "bodies[1].points.P2", "C").ok);
  ASSERT_TRUE(renameItem(m, "ground.points.O1", "origin").ok);
  EXPECT_EQ(renameItem(m, "bodies[2]", "2bad").error, "'2bad' is not a name: letters, digits and _, starting with a letter or _");
  EXPECT_EQ(m.joints[0].points[0].str(), "ground.origin");
  EXPECT_EQ(m.joints[0].points[1].str(), "crank.P1");
  EXPECT_EQ(m.joints[1].points[0].str(), "crank.P2");
  EXPECT_EQ(m.joints[2].points[0].str(), "link2.C");
  EXPECT_EQ(m.drivers[0].joint, "A");
  Diagnostics d;
  const auto r = resolve(m, d);
  ASSERT_TRUE(r.has_value()) << (d.empty() ? "" : d[0].format());
  // a clash is the resolver's to report: two bodies named alike
  ASSERT_TRUE(renameItem(m, "bodies[1]", "crank").ok);
  Diagnostics clash;
  EXPECT_FALSE(resolve(m, clash).has_value());
  ASSERT_FALSE(clash.empty());
  EXPECT_NE(clash[0].message.find("crank"), std::string::npos) << clash[0].format();
}

// a rename reaches every item that names the renamed one: a reaction's body, an effort's driver,
// a switch's forces (each was left behind: the mechanism no longer resolved, the rename refused)
TEST(ItemEdits, RenamesReachReactionsEffortsAndSwitches) {
  Mechanism m = test::sampleMechanism("slider-crank");
  ASSERT_TRUE(renameItem(m, "bodies[0]", "arm").ok);
  ASSERT_TRUE(renameItem(m, "drivers[0]", "engine").ok);
  const auto reaction = std::find_if(m.outputs.begin(), m.outputs.end(), [](const Output& o) { return o.type == Output::Type::JointReaction; });
  const auto effort = std::find_if(m.outputs.begin(), m.outputs.end(), [](const Output& o) { return o.type == Output::Type::DriverEffort; });
  ASSERT_NE(reaction, m.outputs.end());
  ASSERT_NE(effort, m.outputs.end());
  EXPECT_EQ(reaction->on, "arm");  // crank_bearing acts on the crank
  EXPECT_EQ(effort->driver, "engine");
  Diagnostics d;
  EXPECT_TRUE(resolve(m, d).has_value()) << (d.empty() ? "" : d[0].format());

  Mechanism t4 = test::sampleMechanism("switch-t4");
  ASSERT_TRUE(renameItem(t4, "forces[1]", "late").ok);
  EXPECT_EQ(t4.switches[0].enable, std::vector<std::string>{"late"});
  Diagnostics d4;
  EXPECT_TRUE(resolve(t4, d4).has_value()) << (d4.empty() ? "" : d4[0].format());
}

TEST(ItemEdits, OutputsAreAddedChangedAndDeletedWithTheCostsOnThem) {
  Mechanism m = test::sampleMechanism("switch-t4");
  Output o;
  o.type = Output::Type::Energy;
  o.which = Output::Energy::Kinetic;
  const EditResult added = addOutput(m, o);
  ASSERT_TRUE(added.ok);
  EXPECT_EQ(added.item, "output1");
  EXPECT_EQ(added.description, "Add output output1 (energy)");
  o.which = Output::Energy::Total;
  ASSERT_TRUE(changeOutput(m, "output1", o).ok);
  EXPECT_EQ(m.outputs.back().name, "output1");
  EXPECT_EQ(m.outputs.back().which, Output::Energy::Total);
  // v is read by two costs: they go with it
  const EditResult deleted = deleteOutput(m, "v");
  ASSERT_TRUE(deleted.ok);
  EXPECT_EQ(deleted.description, "Delete output v and the costs on it");
  ASSERT_EQ(m.costs.size(), 1u);
  EXPECT_EQ(m.costs[0].name, "y_T");
  EXPECT_EQ(deleteOutput(m, "v").error, "there is no output 'v'");
  Diagnostics d;
  EXPECT_TRUE(resolve(m, d).has_value()) << (d.empty() ? "" : d[0].format());
}

TEST(ItemEdits, ADeletedDriverTakesItsEffortOutput) {
  Mechanism m = test::sampleMechanism("slider-crank");
  ASSERT_TRUE(deleteDriver(m, "motor").ok);
  EXPECT_TRUE(std::none_of(m.outputs.begin(), m.outputs.end(), [](const Output& o) { return o.type == Output::Type::DriverEffort; }));
  Diagnostics d;
  EXPECT_TRUE(resolve(m, d).has_value()) << (d.empty() ? "" : d[0].format());
}

// whatever a user draws, the analyses the sketch runs on every edit answer (or say why): no crash,
// no exception, no hang. Random sequences of sketch edits with a fixed seed.
TEST(SketchEdits, RandomSketchesAreAnalysedWithoutCrashing) {
  std::mt19937 rng(20261121);
  auto coord = [&] { return std::uniform_int_distribution<int>(-20, 20)(rng) * 0.25; };
  int resolved = 0, decomposed = 0, dragged = 0;
  for (int sketch = 0; sketch < 400; ++sketch) {
    Mechanism m = emptyPlanar("random");
    for (int step = 0; step < 14; ++step) {
      Diagnostics d;
      const auto r = resolve(m, d);
      const auto points = r ? sketchPoints(*r) : sketchPoints(m);
      auto somePoint = [&]() -> std::optional<SketchPoint> {
        if (points.empty() || rng() % 3 == 0) return std::nullopt;
        return points[rng() % points.size()];
      };
      Mechanism after = m;
      EditResult e;
      switch (rng() % 8) {
        case 0:
        case 1: e = addGroundPoint(after, {coord(), coord()}); break;
        case 2:
        case 3:
        case 4: e = addLink(after, {somePoint(), {coord(), coord()}}, {somePoint(), {coord(), coord()}}); break;
        case 5:
          if (!after.bodies.empty()) e = addCrankDriver(after, after.bodies[rng() % after.bodies.size()].name);
          break;
        case 6:
          if (const auto p = somePoint(); p && !p->ground()) e = addSlider(after, *p);
          break;
        case 7:
          if (!after.bodies.empty() && rng() % 2) e = deleteBody(after, after.bodies[rng() % after.bodies.size()].name);
          else if (r && !points.empty()) e = movePoint(after, *r, points[rng() % points.size()], {coord(), coord()});
          break;
      }
      if (e.ok) m = after;
      // what the sketch view does after every edit
      Diagnostics d2;
      const auto r2 = resolve(m, d2);
      if (!r2) continue;
      ++resolved;
      (void)topology::grueblerKutzbach(*r2);
      const auto groups = kin::decompose(kin::compileNaturalModel(*r2));
      decomposed += groups.ok;
      if (m.drivers.size() == 1) {
        std::string why;
        if (auto drag = analysis::CrankDrag::create(m, &why)) {
          (void)drag->solve(0.5);
          (void)drag->couplerCurves(24);
          ++dragged;
        } else {
          EXPECT_FALSE(why.empty());
        }
      }
    }
  }
  RecordProperty("resolved", resolved);
  RecordProperty("decomposed", decomposed);
  RecordProperty("dragged", dragged);
  EXPECT_GT(resolved, 1500);  // the generator does make mechanisms
  EXPECT_GT(decomposed, 100);
  EXPECT_GT(dragged, 20);
}

TEST(SketchEdits, PointsOnEachOtherWithoutAJointAreFound) {
  Mechanism m = test::sampleMechanism("four-bar");
  Diagnostics d;
  const auto r = resolve(m, d);
  EXPECT_TRUE(unjoinedCoincidences(m, sketchPoints(*r), 1e-9).empty()) << "every coincidence is a joint";
  const Eigen::Vector3d atB = r->pointWorld(r->joints[1].points[0]);  // joint B: crank.B – coupler.B
  m.joints.erase(m.joints.begin() + 1);
  const auto open = unjoinedCoincidences(m, sketchPoints(*r), 1e-9);
  ASSERT_EQ(open.size(), 1u);
  EXPECT_LT((open[0] - atB.head<2>()).norm(), 1e-12);
  // three bodies on one pin through two joints: joined through each other
  Mechanism three = test::sampleMechanism("jansen-leg");
  const auto rj = resolve(three, d);
  EXPECT_TRUE(unjoinedCoincidences(three, sketchPoints(*rj), 1e-9).empty());
}

}  // namespace
}  // namespace lw::edit
