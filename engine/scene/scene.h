// Plain-data description of what the 3D view draws: no Eigen, no Qt, no VTK.
// SceneModel is built once per compiled mechanism (shapes in body frames); SceneFrame carries
// what changes over time (body poses, joint and spring positions). widgets/ maps them to VTK
// actors; only SceneFrame crosses from a worker thread to the UI during playback.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace lw::scene {

using Vec3 = std::array<double, 3>;
using Rgb = std::array<double, 3>;  // components in [0, 1]

/// Rigid pose: p_W = position + rotation * p_B (rotation row-major 3x3).
struct Pose {
  Vec3 position{0, 0, 0};
  std::array<double, 9> rotation{1, 0, 0, 0, 1, 0, 0, 0, 1};
};

/// One drawable primitive in its body's frame.
struct Primitive {
  enum class Kind { Bar, Plate, Sphere, Box };
  Kind kind = Kind::Bar;
  std::vector<Vec3> points;  // Bar: 2 end points; Plate: polygon corners (convex, in order)
  double radius = 0;         // Bar: half width; Sphere: radius
  Vec3 centre{0, 0, 0};      // Sphere, Box
  Vec3 size{0, 0, 0};        // Box: edge lengths along body axes
};

struct SceneBody {
  std::string name;
  bool isGround = false;
  Rgb color{0.6, 0.6, 0.65};
  std::vector<Primitive> primitives;  // body frame
};

enum class JointGlyph { Pin, Revolute, Slider, Prismatic, Cylindrical, Universal, Spherical, Fixed };

struct SceneJoint {
  std::string name;
  JointGlyph glyph = JointGlyph::Pin;
};

struct SceneSpring {
  std::string name;
};

/// Static part of the scene, built once per model.
struct SceneModel {
  int dimension = 2;
  double drawingScale = 1;  // size of drawn parts (m): ResolvedMechanism::drawingScale; sizes bars, glyphs, the grid
  double extent = 1;       // the largest extent of the mechanism (m): ResolvedMechanism::lengthScale
  // the screen's up: against gravity, snapped to the nearest world axis (y without gravity; a
  // planar model keeps its drawing plane: up stays in it)
  Vec3 up{0, 1, 0};
  std::vector<SceneBody> bodies;
  std::vector<SceneJoint> joints;
  std::vector<SceneSpring> springs;
};

struct JointState {
  Vec3 position{0, 0, 0};
  Vec3 axis{0, 0, 1};  // world axis (Z for planar pins)
};

struct SpringState {
  Vec3 from{0, 0, 0};
  Vec3 to{0, 0, 0};
};

/// Polyline traced by a point over time (coupler curve).
struct Path {
  std::string name;
  Rgb color{0.9, 0.5, 0.1};
  std::vector<Vec3> points;
};

/// An arrow from a point (a velocity, drawn to the scale the caller chose).
struct Arrow {
  Vec3 from{0, 0, 0};
  Vec3 vector{0, 0, 0};  // world units
  Rgb color{0.85, 0.12, 0.12};
};

/// What changes from frame to frame. Arrays are indexed like SceneModel's.
struct SceneFrame {
  double time = 0;
  std::vector<Pose> bodyPoses;
  std::vector<JointState> joints;
  std::vector<SpringState> springs;
  std::vector<Path> paths;
  std::vector<Arrow> arrows;
};

}  // namespace lw::scene
