#include "instruments/smoke.h"

#include <cmath>

#include "attnlab/edits.h"
#include "attnlab/model.h"
#include "session/session.h"
#include "shell/commands.h"
#include "attnlab/matrix_text.h"
#include "attnlab/trace_io.h"
#include "widgets/matrix_editor.h"

namespace attnlab::app {
namespace {

constexpr int kFramesPerAction = 6;

// Rows of the weights must still sum to 1 (or 0 for a query that may attend nothing).
bool WeightsAreDistributions(AppState& state, std::string* why) {
  const attnlab::Trace& t = state.document.GetTrace();
  const bool rows = t.layout == attnlab::Layout::rows;
  for (const attnlab::HeadTrace& h : t.heads) {
    const attnlab::Matrix w = rows ? h.weights : attnlab::Matrix(h.weights.transpose());
    for (int r = 0; r < w.rows(); ++r) {
      double sum = 0;  // a plain loop: Eigen's vectorised sum trips GCC 12's -Wmaybe-uninitialized
      for (int c = 0; c < w.cols(); ++c) sum += w(r, c);
      if (std::fabs(sum - 1.0) > 1e-9 && std::fabs(sum) > 1e-12) {
        *why = "weights row " + std::to_string(r) + " sums to " + std::to_string(sum);
        return false;
      }
    }
  }
  return true;
}

void Act(AppState& state, PanelRegistry& panels, int step) {
  const int heads = state.document.HeadCount();
  switch (step % 10) {
    case 0: state.ui.selected_head = (state.ui.selected_head + 1) % heads; break;
    case 1: state.ui.colormap = static_cast<Colormap>((static_cast<int>(state.ui.colormap) + 1) % 3); break;
    case 2: {
      const attnlab::Layout other = state.document.GetScenario().layout == attnlab::Layout::rows
                                        ? attnlab::Layout::columns : attnlab::Layout::rows;
      state.document.ApplyEdit("layout", [other](attnlab::Scenario& s) { attnlab::set_layout(s, other); });
      break;
    }
    case 3: ToggleLectureMode(state, panels); break;
    case 4:
      if (!state.document.GetScenario().per_head())  // 3 is refused for most widths: exercises the refusal
        state.document.ApplyEdit("heads", [step](attnlab::Scenario& s) { attnlab::set_head_count(s, 1 + (step / 10) % 4); });
      break;
    case 5: state.document.Undo(); break;
    case 6: state.document.Redo(); break;
    case 7:
      state.document.ApplyEdit("scale", [](attnlab::Scenario& s) { attnlab::set_scale(s, 0.5); });
      break;
    case 8: state.document.Undo(); break;
    case 9:
      if (!state.presets.empty() && state.session) {
        Session& session = *state.session;
        session.RequestOpenPreset(state.presets[static_cast<std::size_t>(step / 10) % state.presets.size()]);
        // The tour's edits are not worth keeping: it answers the guard as a user would.
        const Question* asked = session.Pending();
        if (asked && asked->kind == Question::Kind::SaveChanges) session.Answer(Choice::DontSave);
      }
      break;
  }
}

// The Inputs panel's edits, through the same functions its controls call; each checks what it did.
using attnlab::Sequence;

bool Fail(std::string* why, const std::string& text) {
  *why = text;
  return false;
}

// Shapes that must agree after any token edit: labels, an explicit mask, padding.
bool TokensConsistent(const attnlab::Scenario& s, std::string* why) {
  if (!s.tokens.empty() && int(s.tokens.size()) != s.n_x()) return Fail(why, "labels of X out of step");
  if (!s.context_tokens.empty() && int(s.context_tokens.size()) != s.n_z()) return Fail(why, "labels of Z out of step");
  for (int p : s.mask.padding)
    if (p < 0 || p >= s.n_z()) return Fail(why, "padding index " + std::to_string(p) + " out of range");
  if (s.mask.cells && s.mask.cells->size() != long(s.n_x()) * s.n_z()) return Fail(why, "mask cells out of step");
  return true;
}

MatrixEditorSpec WqSpec(const attnlab::Scenario& s) {
  MatrixEditorSpec spec;
  spec.source = "W_q";
  spec.values = s.full.W_q ? &*s.full.W_q : nullptr;
  return spec;
}

bool EditCell(AppState& state, std::string* why) {
  const attnlab::Scenario& s = state.document.GetScenario();
  if (s.per_head() || !s.full.W_q) return true;
  const MatrixEditorSpec spec = WqSpec(s);
  const std::uint64_t version = state.document.Version();
  if (CommitTypedCell(state.document, spec, 0, 0, "abc") || CommitTypedCell(state.document, spec, 0, 0, "inf") ||
      state.document.Version() != version)
    return Fail(why, "a non-number typed into W_q was accepted");
  if (!state.document.EditErrorFor("W_q")) return Fail(why, "a refused value left no message");
  const MatrixEditorSpec now = WqSpec(state.document.GetScenario());
  if (!CommitTypedCell(state.document, now, 0, 0, "0.375") || (*state.document.GetScenario().full.W_q)(0, 0) != 0.375)
    return Fail(why, "typing 0.375 into W_q[0][0] did not store it");
  return true;
}

bool PasteText(AppState& state, std::string* why) {
  MatrixEditorSpec spec;
  spec.source = "X";
  spec.values = &state.document.GetScenario().X;
  const attnlab::Matrix half = state.document.GetScenario().X * 0.5;
  if (!CommitPastedText(state.document, spec, attnlab::format_matrix(half, 6)))
    return Fail(why, "pasting X's own NumPy text was refused: " + state.document.LastEditError().message);
  if (!state.document.GetScenario().X.isApprox(half, 1e-6)) return Fail(why, "pasted X differs from the text");
  spec.values = &state.document.GetScenario().X;
  if (CommitPastedText(state.document, spec, "1, 2\n3, 4\n5, 6, 7")) return Fail(why, "a ragged paste was accepted");
  const attnlab::Matrix wrong = attnlab::Matrix::Ones(spec.values->rows() + 1, spec.values->cols());
  if (CommitPastedText(state.document, spec, attnlab::matrix_to_csv(wrong)) ||
      state.document.LastEditError().message.find("pasted") == std::string::npos)
    return Fail(why, "a paste of the wrong shape was not refused with its shape");
  return true;
}

bool TokenEdits(AppState& state, int step, std::string* why) {
  const int n = state.document.GetScenario().n_x();
  switch (step) {
    case 0:
      if (!state.document.ApplyEdit("tokens X", [n](attnlab::Scenario& s) { attnlab::insert_token(s, Sequence::X, n); }) ||
          state.document.GetScenario().n_x() != n + 1)
        return Fail(why, "adding a token failed: " + state.document.LastEditError().message);
      break;
    case 1: {
      if (n < 2) break;
      const attnlab::Scenario before = state.document.GetScenario();
      state.document.ApplyEdit("tokens X", [](attnlab::Scenario& s) { attnlab::move_token(s, Sequence::X, 0, +1); });
      const bool rows = before.layout == attnlab::Layout::rows;
      const attnlab::Matrix& x = state.document.GetScenario().X;
      const bool moved = rows ? x.row(1) == before.X.row(0) : x.col(1) == before.X.col(0);
      if (!moved)
        return Fail(why, "moving token 0 down did not move its embedding");
      break;
    }
    case 2:
      state.document.ApplyEdit("tokens X", [n](attnlab::Scenario& s) { attnlab::remove_token(s, Sequence::X, n - 1); });
      if (n > 1 && state.document.GetScenario().n_x() != n - 1) return Fail(why, "removing a token failed");
      break;
    case 3: {
      attnlab::Scenario one = state.document.GetScenario();
      while (one.n_x() > 1) attnlab::remove_token(one, Sequence::X, 0);
      bool refused = false;
      try {
        attnlab::remove_token(one, Sequence::X, 0);
      } catch (const attnlab::ScenarioError&) {
        refused = true;
      }
      if (!refused) return Fail(why, "removing the last token was not refused");
      break;
    }
  }
  return TokensConsistent(state.document.GetScenario(), why);
}

bool ToggleCross(AppState& state, std::string* why) {
  const bool cross = state.document.GetScenario().cross_attention();
  const int n_x = state.document.GetScenario().n_x();
  const bool ok = state.document.ApplyEdit("attention", [cross](attnlab::Scenario& s) { attnlab::set_cross_attention(s, !cross); });
  if (ok && state.document.GetScenario().cross_attention() == cross) return Fail(why, "attention kind did not switch");
  if (ok && !cross && state.document.GetScenario().n_z() != n_x) return Fail(why, "Z is not a copy of X");
  return TokensConsistent(state.document.GetScenario(), why);
}

bool ChangeKeyWidth(AppState& state, std::string* why) {
  const attnlab::Trace& t = state.document.GetTrace();
  if (t.heads.empty()) return true;
  const bool rows = t.layout == attnlab::Layout::rows;
  const int d_k = int(rows ? t.heads[0].Q.cols() : t.heads[0].Q.rows());
  // RoPE rotates pairs: its d_k stays even (an odd one is refused, rightly).
  const int step = state.document.GetScenario().rope ? 2 : 1;
  const int next = d_k > step + 1 ? d_k - step : d_k + step;
  attnlab::Fill fill;
  if (!state.document.ApplyEdit("d_k", [&](attnlab::Scenario& s) { attnlab::set_key_width(s, next, fill); }))
    return Fail(why, "d_k " + std::to_string(next) + " refused: " + state.document.LastEditError().message);
  const attnlab::Trace& after = state.document.GetTrace();
  if (int(rows ? after.heads[0].K.cols() : after.heads[0].K.rows()) != next) return Fail(why, "d_k did not change");
  return true;
}

bool Randomize(AppState& state, int step, std::string* why) {
  attnlab::RandomSpec spec;
  spec.kind = static_cast<attnlab::RandomSpec::Kind>(step % 3);
  spec.seed = static_cast<std::uint64_t>(step);
  if (!state.document.ApplyEdit("randomize", [spec](attnlab::Scenario& s) { attnlab::randomize_weights(s, spec); }))
    return Fail(why, "randomize refused: " + state.document.LastEditError().message);
  return true;
}

bool ActOnInputs(AppState& state, int step, std::string* why) {
  switch (step % 9) {
    case 0: return EditCell(state, why);
    case 1: return PasteText(state, why);
    case 2: case 3: case 4: case 5: return TokenEdits(state, step % 9 - 2, why);
    case 6: return ToggleCross(state, why);
    case 7: return ChangeKeyWidth(state, why);
    default: return Randomize(state, step, why);
  }
}

}  // namespace

void SmokeStep(AppState& state, PanelRegistry& panels, int frame, SmokeReport* report) {
  if (state.document.Version() != report->last_version) {
    ++report->versions;
    report->last_version = state.document.Version();
  }
  if (frame % kFramesPerAction != kFramesPerAction - 1) return;
  Act(state, panels, report->actions++);
  // Count the version Act left (the check below computes its trace) before the Inputs edit.
  if (state.document.Version() != report->last_version) {
    ++report->versions;
    report->last_version = state.document.Version();
  }
  std::string input_why;
  if (report->ok && report->actions % 2 == 0 && !ActOnInputs(state, report->actions / 2, &input_why)) {
    report->ok = false;
    report->failure = "inputs: " + input_why;
  }
  std::string why;
  if (report->ok && !WeightsAreDistributions(state, &why)) {
    report->ok = false;
    report->failure = why;
  }
}

}  // namespace attnlab::app
