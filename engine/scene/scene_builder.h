// Turns a resolved mechanism into the plain-data scene the 3D view draws.
#pragma once

#include "mechanism/resolved.h"
#include "scene/scene.h"

namespace lw::scene {

/// Shapes of every body (in body frames), joint glyph kinds and springs; built once per model.
SceneModel buildSceneModel(const ResolvedMechanism& m);

/// Body poses, joint and spring positions in the stored configuration.
SceneFrame storedConfigurationFrame(const ResolvedMechanism& m);

/// The frame of a moving configuration: `poses` holds 12 numbers per body (row-major rotation,
/// then position), bodies in ResolvedMechanism order (the ground included).
SceneFrame frameFromPoses(const ResolvedMechanism& m, const double* poses, double time);

/// The paths the points of interest trace over a run (`rows` rows of poses as in frameFromPoses),
/// at most `maxPoints` vertices each. Points of interest: the points of moving bodies that no joint
/// uses (coupler points) and those the outputs follow; when there are none, the joint points
/// between two moving bodies.
std::vector<Path> tracedPaths(const ResolvedMechanism& m, const double* poses, std::size_t rows,
                              std::size_t maxPoints = 2000);

/// Where a result table (named columns, row-major values) keeps each point's position and
/// velocity: the columns `<body>.<point>.x|y|z` and `.vx|vy|vz` (z absent in planar results).
struct PointColumns {
  int position[3] = {-1, -1, -1};
  int velocity[3] = {-1, -1, -1};
};
std::vector<PointColumns> pointVelocityColumns(const std::vector<std::string>& columns);

/// Arrow length per unit speed so that the fastest point over the run gets an arrow of
/// `fraction` times the size of the region the points sweep. 0 when nothing moves.
double velocityArrowScale(const std::vector<PointColumns>& points, const std::vector<double>& values,
                          std::size_t columns, double fraction = 0.2);

/// The velocity arrows of one row (`row` points at its first value); points that coincide (the two
/// sides of a joint) get one arrow.
std::vector<Arrow> velocityArrows(const std::vector<PointColumns>& points, const double* row, double scale);

}  // namespace lw::scene
