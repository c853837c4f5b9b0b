#pragma once
/// One head's queries and keys as points in a plane, for the Plane panel (GUI-free): the vectors
/// the scores are computed from, their projection onto two axes, and whether dragging a point may
/// edit the embeddings.
#include <cstddef>
#include <string>

#include "attnlab/matrix.h"
#include "attnlab/model.h"
#include "attnlab/trace.h"

namespace attnlab::app {

/// Head h's query and key vectors in the rows convention, whatever the trace's layout: what its
/// scores are computed from (Q_rot and K_rot with RoPE, else Q and K).
struct HeadVectors {
  attnlab::Matrix Q;  ///< n_x by d_k
  attnlab::Matrix K;  ///< n_z by d_k
};
HeadVectors ScoreVectors(const attnlab::Trace& trace, std::size_t h);

/// Query i's score with key j in head h (q_i . k_j, before scaling) and its weight, read from the
/// trace in either layout.
double ScoreOf(const attnlab::Trace& trace, std::size_t h, int i, int j);
double WeightOf(const attnlab::Trace& trace, std::size_t h, int i, int j);

struct PlaneProjection {
  attnlab::Matrix queries;  ///< n_x by 2: each query's coordinates along the two axes
  attnlab::Matrix keys;     ///< n_z by 2
  attnlab::Matrix axes;     ///< d_k by 2, unit columns: the plane's axes in d_k space
  /// Share of the stacked vectors' sum of squares along each axis (lambda / trace of the Gram
  /// matrix); 0 when every vector is 0.
  double explained[2] = {0, 0};
  bool principal = false;  ///< the axes are principal axes (d_k > 2), not coordinates 0 and 1
};

/// The plane of Q (n_x by d_k) and K (n_z by d_k). d_k <= 2: the coordinates themselves (d_k = 1:
/// the second is 0). d_k > 2: the two principal axes of the stacked rows [Q; K], uncentred: the
/// eigenvectors of the Gram matrix M = [Q; K]^T [Q; K] (d_k by d_k) with the largest eigenvalues,
/// each signed so that its largest component is positive. Uncentred, so that the origin stays the
/// origin: arrows from 0 and dot products (q . k = |q| |k| cos) keep their meaning in the picture.
PlaneProjection ProjectToPlane(const attnlab::Matrix& Q, const attnlab::Matrix& K);

/// Why dragging head h's points cannot edit the embeddings, or "" when it can: its queries and
/// keys are the embeddings themselves (d_x = 2, and d_z = 2 for cross-attention; W_q and W_k the
/// identity, no b_q or b_k, no positional encoding, no RoPE).
std::string PlaneDragRefusal(const attnlab::Model& model, std::size_t h);

/// Half the side of the square plot in plot units: every point inside with a margin of 15%, rounded
/// up to 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten (1 when every point is at 0).
double PlaneExtent(const PlaneProjection& p);
/// The grid's step for `extent`: 1, 2 or 5 times a power of ten, 2 to 5 lines each side.
double PlaneGridStep(double extent);

}  // namespace attnlab::app
