#include "view/formulas.h"

#include <cctype>
#include <cmath>
#include <cstdio>

namespace attnlab::app {
namespace {

bool HasBias(const attnlab::Scenario& s, int head, char which) {
  const attnlab::Projections& p =
      s.per_head() ? s.heads[static_cast<std::size_t>(head)] : s.full;
  switch (which) {
    case 'q': return p.b_q.has_value();
    case 'k': return p.b_k.has_value();
    default: return p.b_v.has_value();
  }
}

// "Q = X W_q + b_q" in rows, "Q = W_q X + b_q 1^T" in columns; identity projections drop W.
std::string Projection(const attnlab::Scenario& s, int head, char which) {
  const bool rows = s.layout == attnlab::Layout::rows;
  const char* input = which == 'q' || !s.cross_attention() ? "X" : "Z";
  const std::string name(1, static_cast<char>(std::toupper(which)));
  const attnlab::Projections& p =
      s.per_head() ? s.heads[static_cast<std::size_t>(head)] : s.full;
  const bool has_w = which == 'q' ? p.W_q.has_value() : which == 'k' ? p.W_k.has_value()
                                                                     : p.W_v.has_value();
  const std::string w = std::string("W_") + which + (s.head_count() > 1 ? "\xE2\x81\xBD\xCA\xB0\xE2\x81\xBE" : "");
  std::string out = name + " = ";
  if (!has_w)
    out += input;
  else
    out += rows ? std::string(input) + " " + w : w + " " + input;
  if (HasBias(s, head, which)) out += std::string(" + b_") + which + (rows ? "" : " 1^T");
  return out;
}

}  // namespace

std::string ScaleDescription(const attnlab::Scenario& s, int d_k) {
  char buf[96];
  switch (s.scale.kind) {
    case attnlab::Scale::Kind::inv_sqrt_dk:
      std::snprintf(buf, sizeof buf, "1/\xE2\x88\x9A" "d_k = 1/\xE2\x88\x9A%d = %.4g", d_k,
                    1.0 / std::sqrt(static_cast<double>(d_k)));
      break;
    case attnlab::Scale::Kind::none: std::snprintf(buf, sizeof buf, "1 (unscaled)"); break;
    case attnlab::Scale::Kind::value:
      std::snprintf(buf, sizeof buf, "%.4g (temperature T = %.4g)", s.scale.value,
                    1.0 / s.scale.value);
      break;
  }
  return buf;
}

std::string AttentionSummary(const attnlab::Scenario& s) {
  const bool rows = s.layout == attnlab::Layout::rows;
  std::string scale;
  switch (s.scale.kind) {
    case attnlab::Scale::Kind::inv_sqrt_dk: scale = " / \xE2\x88\x9A" "d_k"; break;
    case attnlab::Scale::Kind::none: break;
    case attnlab::Scale::Kind::value: {
      char buf[32];
      std::snprintf(buf, sizeof buf, " \xC2\xB7 %.3g", s.scale.value);
      scale = buf;
      break;
    }
  }
  const std::string mask = s.mask.empty() ? "" : " + M";
  const std::string out = s.W_o ? (rows ? ",  out = concat W_o" : ",  out = W_o concat") : "";
  return rows ? "A = softmax_row(Q K^T" + scale + mask + "),  Y = A V" + out
              : "A = softmax_col(K^T Q" + scale + mask + "),  Y = V A" + out;
}

std::string StageFormula(Stage stage, const attnlab::Scenario& s, int head, int d_k) {
  const bool rows = s.layout == attnlab::Layout::rows;
  switch (stage) {
    case Stage::Q: return Projection(s, head, 'q');
    case Stage::K: return Projection(s, head, 'k');
    case Stage::V: return Projection(s, head, 'v');
    case Stage::Scores: return rows ? "S = Q K^T" : "S = K^T Q";
    case Stage::Scaled: return "S\xE2\x80\xB2 = S \xC2\xB7 " + ScaleDescription(s, d_k);
    case Stage::Masked: return "S\xE2\x80\xB3 = S\xE2\x80\xB2, \xE2\x88\x92\xE2\x88\x9E where masked";
    case Stage::Weights:
      return rows ? "A = softmax(S\xE2\x80\xB3) along each row" : "A = softmax(S\xE2\x80\xB3) down each column";
    case Stage::HeadOutput: return rows ? "Y = A V" : "Y = V A";
    case Stage::Concat:
      return rows ? "[Y\xE2\x82\x81 \xE2\x80\xA6 Y_H] side by side" : "[Y\xE2\x82\x81; \xE2\x80\xA6; Y_H] stacked";
    case Stage::Wo: return rows ? "H\xC2\xB7" "d_v \xC3\x97 d_out" : "d_out \xC3\x97 H\xC2\xB7" "d_v";
    case Stage::Output: {
      const bool bias = s.b_o.has_value();
      if (!s.W_o) return "output = concat";
      return rows ? std::string("concat W_o") + (bias ? " + b_o" : "")
                  : std::string("W_o concat") + (bias ? " + b_o 1^T" : "");
    }
    case Stage::None: break;
  }
  return {};
}

}  // namespace attnlab::app
