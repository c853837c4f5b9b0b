#include "view/stage.h"

namespace attnlab::app {

const char* StageName(Stage stage) {
  switch (stage) {
    case Stage::None: return "none";
    case Stage::XPos: return "X_pos";
    case Stage::QRot: return "Q_rot";
    case Stage::KRot: return "K_rot";
    case Stage::Bias: return "bias";
    case Stage::Q: return "Q";
    case Stage::K: return "K";
    case Stage::V: return "V";
    case Stage::Scores: return "scores";
    case Stage::Scaled: return "scaled";
    case Stage::Masked: return "masked";
    case Stage::Weights: return "weights";
    case Stage::HeadOutput: return "head_output";
    case Stage::Concat: return "concat";
    case Stage::Wo: return "W_o";
    case Stage::Output: return "output";
  }
  return "?";
}

}  // namespace attnlab::app
