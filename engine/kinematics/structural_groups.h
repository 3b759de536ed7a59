// Structural-group decomposition (seed 002 §2.2, the graph method with thin and root edges, as
// formalised in shared/reference 002): split the moving bodies into an ordered set of
// kinematically determined chains, each solvable once the frame and the earlier groups are known.
//
// Pairs are the joints (grade = freedoms the joint allows), plus one pair per coordinate or
// distance driver and per locked passive spin (grade B − 1: they remove one freedom). A driven
// joint turns one of its edges into a root edge. A connected set X of unsolved bodies touching the
// solved part is a group when L_th = B·(P − |X|) (Eq. 14), P counting the pairs inside X and those
// from X to solved bodies; the smallest such sets are taken first. Eq. 14 is only necessary: each
// group is confirmed by the rank of its Jacobian in the natural-coordinate model.
#pragma once

#include <string>
#include <vector>

#include "kinematics/natural_model.h"

namespace lw::kin {

struct StructuralGroup {
  std::vector<int> bodies;   // ResolvedMechanism body indices, in model order
  int pairs = 0;             // P: internal pairs and pairs to already solved bodies
  int drivenInputs = 0;      // n_c: driven coordinates inside those pairs
  std::string kind;          // "primary element", "Assur group class II", "driven group", ...
  std::string name;          // "crank", "RRR dyad", "RRP dyad", "triad", "1R3D", "2E1P", ...
  std::vector<int> inputs;   // groups it needs (indices into Decomposition::groups); -1 = frame
  std::vector<int> joints;   // joints closed by this group (inside it or to solved bodies)
  std::vector<int> drivers;  // drivers acting in it
};

struct Decomposition {
  bool ok = false;
  std::string error;               // why not, naming the bodies
  std::vector<int> unsolvedBodies; // when not ok
  std::vector<StructuralGroup> groups;  // in solve order
};

/// Decomposes the mechanism of `m` (its natural model supplies the locked passive spins).
Decomposition decompose(const kin::NaturalModel& m);

/// "{crank} {coupler, rocker}": groups by body name, for messages and tests.
std::string describe(const Decomposition& d, const ResolvedMechanism& m);

}  // namespace lw::kin
