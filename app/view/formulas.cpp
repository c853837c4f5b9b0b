#include "view/formulas.h"

#include "attnlab/lesson.h"

namespace attnlab::app {
namespace {

// The window's stages are the lesson's (core, shared with the CLI's lesson export).
attnlab::lesson::StepKind KindOf(Stage stage) {
  using K = attnlab::lesson::StepKind;
  switch (stage) {
    case Stage::XPos: return K::X_pos;
    case Stage::QRot: return K::Q_rot;
    case Stage::KRot: return K::K_rot;
    case Stage::Bias: return K::bias;
    case Stage::Q: return K::Q;
    case Stage::K: return K::K;
    case Stage::V: return K::V;
    case Stage::Scores: return K::scores;
    case Stage::Scaled: return K::scaled;
    case Stage::Masked: return K::masked;
    case Stage::Weights: return K::weights;
    case Stage::HeadOutput: return K::head_output;
    case Stage::Concat: return K::concat;
    case Stage::Wo: return K::W_o;
    case Stage::Output: return K::output;
    case Stage::None: break;
  }
  return K::inputs;
}

}  // namespace

std::string ScaleDescription(const attnlab::Scenario& s, int d_k) {
  return attnlab::lesson::scale_description(s, d_k);
}

std::string AttentionSummary(const attnlab::Scenario& s) { return attnlab::lesson::attention_summary(s); }

std::string StageFormula(Stage stage, const attnlab::Scenario& s, int head, int d_k) {
  if (stage == Stage::None) return {};
  return attnlab::lesson::stage_formula(KindOf(stage), s, head, d_k);
}

}  // namespace attnlab::app
