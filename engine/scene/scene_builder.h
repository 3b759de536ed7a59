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
/// uses (coupler points); when there are none, the joint points between two moving bodies.
std::vector<Path> tracedPaths(const ResolvedMechanism& m, const double* poses, std::size_t rows,
                              std::size_t maxPoints = 2000);

}  // namespace lw::scene
