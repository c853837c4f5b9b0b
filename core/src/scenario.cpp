#include "attnlab/scenario.h"

#include "attnlab/message_text.h"

namespace attnlab {

ScenarioError::ScenarioError(const std::string& message) : std::runtime_error(one_line_message(message)) {}

void refuse(const std::string& field, const std::string& message) { throw ScenarioError(field + ": " + message); }

namespace {
bool tokens_are_rows(Layout layout) { return layout == Layout::rows; }
int token_count(const Matrix& m, Layout layout) {
  return static_cast<int>(tokens_are_rows(layout) ? m.rows() : m.cols());
}
int width(const Matrix& m, Layout layout) {
  return static_cast<int>(tokens_are_rows(layout) ? m.cols() : m.rows());
}

template <typename M>
std::size_t count(const M& m) { return static_cast<std::size_t>(m.size()); }
template <typename M>
std::size_t count(const std::optional<M>& m) { return m ? count(*m) : 0; }
std::size_t count(const Projections& p) {
  return count(p.W_q) + count(p.W_k) + count(p.W_v) + count(p.b_q) + count(p.b_k) + count(p.b_v);
}
}  // namespace

int Scenario::n_x() const { return token_count(X, layout); }
int Scenario::d_x() const { return width(X, layout); }
int Scenario::n_z() const { return Z ? token_count(*Z, layout) : n_x(); }
int Scenario::d_z() const { return Z ? width(*Z, layout) : d_x(); }

std::size_t Scenario::number_count() const {
  std::size_t n = count(X) + count(Z) + count(full) + count(W_o) + count(b_o) + count(mask.cells);
  for (const Projections& p : heads) n += count(p);
  for (const Projections& p : kv_heads) n += count(p);
  return n;
}

}  // namespace attnlab
