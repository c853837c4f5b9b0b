#include "panels/positions_controls.h"

#include <imgui.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "attnlab/edits.h"
#include "attnlab/number_format.h"
#include "attnlab/positions.h"
#include "widgets/control_marks.h"
#include "widgets/edit_error.h"
#include "widgets/theme.h"

namespace attnlab::app {
namespace {

constexpr const char* kPositionsSource = "positions";

std::string Joined(const std::vector<int>& v) {
  std::string out;
  for (int p : v) out += (out.empty() ? "" : " ") + std::to_string(p);
  return out;
}

// One sequence's positions as a line of numbers (`member`: positions or context_positions; empty
// means 0 .. n - 1). Long sequences are edited in the file: the field shows up to its buffer.
void PositionsRow(AppState& state, PositionsField& field, const char* label, const std::string& mark,
                  attnlab::Sequence seq, int count) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const std::vector<int>& given = seq == attnlab::Sequence::X ? s.positions : s.context_positions;
  std::vector<int> shown = given;
  if (shown.empty())
    for (int i = 0; i < count; ++i) shown.push_back(i);
  const std::string joined = Joined(shown);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  ImGui::SameLine();
  if (joined.size() >= sizeof field.text) {
    DimTextWrapped(std::to_string(count) + " positions, from " + std::to_string(shown.front()) + " (edit them in the file)");
    return;
  }
  if (!field.editing) std::snprintf(field.text, sizeof field.text, "%s", joined.c_str());
  ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 4.0f);
  const std::string id = "##" + mark;
  const bool enter = ImGui::InputText(id.c_str(), field.text, sizeof field.text, ImGuiInputTextFlags_EnterReturnsTrue);
  field.editing = ImGui::IsItemActive();
  MarkLastItem(state.on_control, mark.c_str());
  if (enter || ImGui::IsItemDeactivatedAfterEdit()) {
    const std::string text = field.text;
    state.document.ApplyEdit(kPositionsSource, [text, seq](attnlab::Scenario& e) { attnlab::set_positions(e, seq, text); });
  }
  ImGui::SameLine();
  ImGui::PushID(mark.c_str());
  ImGui::BeginDisabled(given.empty());
  if (ImGui::Button("0..n"))
    state.document.ApplyEdit(kPositionsSource, [seq](attnlab::Scenario& e) { attnlab::reset_positions(e, seq); });
  ImGui::EndDisabled();
  ImGui::PopID();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("Positions 0, 1, ..., n - 1");
}

void EncodingRow(AppState& state) {
  const attnlab::Scenario& s = state.document.GetScenario();
  bool on = s.positional_encoding == attnlab::PositionalEncoding::sinusoidal;
  if (ImGui::Checkbox("Sinusoidal encoding (X + PE)", &on))
    state.document.ApplyEdit(kPositionsSource, [on](attnlab::Scenario& e) { attnlab::set_sinusoidal_encoding(e, on); });
  MarkLastItem(state.on_control, "encoding");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Vaswani et al. 2017: sin and cos of the position added to X");
}

// A checkbox for an optional part of the scenario: true when clicked, `on` then its new state.
bool OptionalToggle(AppState& state, const char* label, const char* mark, const char* tip, bool* on) {
  const bool clicked = ImGui::Checkbox(label, on);
  MarkLastItem(state.on_control, mark);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
  return clicked;
}

// A positive number of the scenario typed in a field (Enter: one edit), with its tooltip.
void NumberField(AppState& state, const char* label, double value, const char* tip,
                 const std::function<void(attnlab::Scenario&, double)>& set) {
  double typed = value;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.0f);
  if (ImGui::InputDouble(label, &typed, 0.0, 0.0, "%.6g", ImGuiInputTextFlags_EnterReturnsTrue) && typed != value)
    state.document.ApplyEdit(kPositionsSource, [set, typed](attnlab::Scenario& e) { set(e, typed); });
  MarkLastItem(state.on_control, label);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
}

// LongRoPE's factors, one per pair, typed on a line like ALiBi's slopes.
void FactorsRow(AppState& state, PositionsField& field, bool long_factors) {
  const attnlab::RopeScaling& sc = state.document.GetScenario().rope->scaling;
  const std::vector<double>& factors = long_factors ? sc.long_factors : sc.short_factors;
  std::string joined;
  for (std::size_t c = 0; c < factors.size(); ++c) joined += (c ? " " : "") + attnlab::format_trimmed(factors[c], 6);
  if (!field.editing) std::snprintf(field.text, sizeof field.text, "%s", joined.c_str());
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(long_factors ? "long " : "short");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 1.0f);
  const char* mark = long_factors ? "long factors" : "short factors";
  const bool enter = ImGui::InputText((std::string("##") + mark).c_str(), field.text, sizeof field.text,
                                      ImGuiInputTextFlags_EnterReturnsTrue);
  field.editing = ImGui::IsItemActive();
  MarkLastItem(state.on_control, mark);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("One divisor per pair (R/2 numbers), pair 0 first");
  if ((enter || ImGui::IsItemDeactivatedAfterEdit()) && std::string(field.text) != joined) {
    const std::string text = field.text;
    state.document.ApplyEdit(kPositionsSource, [text, long_factors](attnlab::Scenario& e) {
      attnlab::set_rope_scaling_factors(e, long_factors, text);
    });
  }
}

// RoPE scaling's rule (Hugging Face's rope_scaling), on RoPE's own line: none adds no row.
void RopeScalingChoice(AppState& state) {
  using Kind = attnlab::RopeScaling::Kind;
  const Kind kind = state.document.GetScenario().rope->scaling.kind;
  static const char* const kNames[] = {"none", "linear", "llama3", "longrope"};
  const float width = ImGui::GetFontSize() * 6.0f;
  SameLineIfFits(width + ImGui::CalcTextSize("scaling").x + ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::SetNextItemWidth(width);
  if (ImGui::BeginCombo("scaling##rope scaling", kNames[int(kind)])) {
    for (int k = 0; k < 4; ++k) {
      if (ImGui::Selectable(kNames[k], int(kind) == k) && int(kind) != k)
        state.document.ApplyEdit(kPositionsSource, [k](attnlab::Scenario& e) { attnlab::set_rope_scaling(e, Kind(k)); });
      MarkLastItem(state.on_control, (std::string("scaling ") + kNames[k]).c_str());
    }
    ImGui::EndCombo();
  }
  MarkLastItem(state.on_control, "rope scaling");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("How long-context models stretch RoPE's frequencies (Hugging Face's rope_scaling)");
}

// The numbers of the scaling rule chosen (none without one).
void RopeScalingRows(AppState& state, PositionsFields& fields) {
  using Kind = attnlab::RopeScaling::Kind;
  const attnlab::RopeScaling sc = state.document.GetScenario().rope->scaling;
  const auto number = [](const char* name) {
    return [name = std::string(name)](attnlab::Scenario& e, double v) { attnlab::set_rope_scaling_number(e, name, v); };
  };
  if (sc.kind == Kind::linear || sc.kind == Kind::llama3)
    NumberField(state, "factor", sc.factor, "The divisor of the stretched frequencies", number("factor"));
  if (sc.kind == Kind::llama3) {
    ImGui::SameLine();
    NumberField(state, "low", sc.low_freq_factor, "low_freq_factor: wavelengths above original / low are divided",
                number("low_freq_factor"));
    ImGui::SameLine();
    NumberField(state, "high", sc.high_freq_factor, "high_freq_factor: wavelengths below original / high are kept",
                number("high_freq_factor"));
  }
  if (sc.kind == Kind::llama3 || sc.kind == Kind::longrope)
    NumberField(state, "original", sc.original_positions,
                "original_max_position_embeddings: the length the model was trained on", number("original_positions"));
  if (sc.kind != Kind::longrope) return;
  ImGui::SameLine();
  NumberField(state, "attention", sc.attention_factor, "attention_factor: cos and sin are multiplied by it",
              number("attention_factor"));
  FactorsRow(state, fields.short_factors, false);
  FactorsRow(state, fields.long_factors, true);
}

void RopeRows(AppState& state, PositionsFields& fields) {
  const attnlab::Scenario& s = state.document.GetScenario();
  bool on = s.rope.has_value();
  if (OptionalToggle(state, "RoPE (rotary)", "rope",
                     "Turn each query and key, pair by pair, by its position (Llama, Mistral, GPT-NeoX)", &on))
    state.document.ApplyEdit(kPositionsSource, [on](attnlab::Scenario& e) { attnlab::set_rope(e, on); });
  if (!s.rope) return;
  RopeScalingChoice(state);
  const attnlab::Rope rope = *s.rope;
  ImGui::Indent();
  for (auto style : {attnlab::Rope::Style::half, attnlab::Rope::Style::interleaved}) {
    const bool half = style == attnlab::Rope::Style::half;
    const char* label = half ? "half (HF Llama)" : "interleaved (GPT-J)";
    if (!half) SameLineIfFits(RadioButtonWidth(label));
    if (ImGui::RadioButton(label, rope.style == style) && rope.style != style)
      state.document.ApplyEdit(kPositionsSource, [style](attnlab::Scenario& e) { attnlab::set_rope_style(e, style); });
  }
  double base = rope.base;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
  if (ImGui::InputDouble("base", &base, 0.0, 0.0, "%.6g", ImGuiInputTextFlags_EnterReturnsTrue) && base != rope.base)
    state.document.ApplyEdit(kPositionsSource, [base](attnlab::Scenario& e) { attnlab::set_rope_base(e, base); });
  ImGui::SameLine();
  int dims = rope.dims;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.0f);
  if (ImGui::InputInt("dims", &dims, 2, 2) && dims != rope.dims && dims >= 0)
    state.document.ApplyEdit(kPositionsSource, [dims](attnlab::Scenario& e) { attnlab::set_rope_dims(e, dims); });
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Rotary dims R (even, at most d_k; 0 = all of d_k)");
  RopeScalingRows(state, fields);
  ImGui::Unindent();
}

// ALiBi's slopes, one per head, typed on one line (Enter or leaving the field: one edit);
// the paper's geometric slopes until some are typed, and again when the line is emptied.
void SlopesRow(AppState& state, PositionsField& field) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const bool paper = s.alibi->slopes.empty();
  const std::vector<double> slopes = paper ? attnlab::positional::alibi_slopes(s.head_count()) : s.alibi->slopes;
  std::string joined;
  for (std::size_t h = 0; h < slopes.size(); ++h) joined += (h ? " " : "") + attnlab::format_trimmed(slopes[h], 6);
  if (!field.editing) std::snprintf(field.text, sizeof field.text, "%s", joined.c_str());
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("slopes");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-ImGui::GetFontSize() * (paper ? 4.5f : 4.0f));
  const bool enter = ImGui::InputText("##alibi slopes", field.text, sizeof field.text, ImGuiInputTextFlags_EnterReturnsTrue);
  field.editing = ImGui::IsItemActive();
  MarkLastItem(state.on_control, "alibi slopes");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("One slope m_h a head, head 1 first (Enter to apply; empty: the paper's 1/2^(8h/H))");
  if ((enter || ImGui::IsItemDeactivatedAfterEdit()) && std::string(field.text) != joined) {
    const std::string text = field.text;
    state.document.ApplyEdit(kPositionsSource, [text](attnlab::Scenario& e) { attnlab::set_alibi_slopes(e, text); });
  }
  ImGui::SameLine();
  if (paper) {
    ImGui::TextColored(DimTextColor(), "paper");
  } else {
    if (ImGui::SmallButton("paper"))
      state.document.ApplyEdit(kPositionsSource, [](attnlab::Scenario& e) { attnlab::set_alibi_slopes(e, ""); });
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Back to the paper's slopes 1/2^(8h/H)");
  }
}

void AlibiRows(AppState& state, PositionsField& slopes) {
  const attnlab::Scenario& s = state.document.GetScenario();
  bool on = s.alibi.has_value();
  if (OptionalToggle(state, "ALiBi (distance penalty)", "alibi", "Press et al. 2022 (BLOOM, MPT): head h subtracts m_h |p_i - c_j|",
                     &on))
    state.document.ApplyEdit(kPositionsSource, [on](attnlab::Scenario& e) { attnlab::set_alibi(e, on); });
  if (!s.alibi) return;
  ImGui::Indent();
  SlopesRow(state, slopes);
  ImGui::Unindent();
}

}  // namespace

void KvHeadsControl(AppState& state) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const attnlab::Trace& t = state.document.GetTrace();
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("K/V heads");
  ImGui::TableSetColumnIndex(1);
  const int G = s.kv_head_count(), H = s.head_count();
  const std::vector<int> valid = attnlab::valid_kv_head_counts(s);
  if (valid.empty()) {
    ImGui::AlignTextToFramePadding();
    ImGui::Text("%d (kv_heads)", G);
  } else {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4.0f);
    if (ImGui::BeginCombo("##kvheads", std::to_string(G).c_str())) {
      for (int g : valid)
        if (ImGui::Selectable(std::to_string(g).c_str(), g == G) && g != G)
          state.document.ApplyEdit("kv heads", [g](attnlab::Scenario& e) { attnlab::set_kv_head_count(e, g); });
      ImGui::EndCombo();
    }
    MarkLastItem(state.on_control, "kv heads");
  }
  ImGui::SameLine();
  ImGui::TextColored(DimTextColor(), "%s", G == H ? "one per head" : G == 1 ? "multi-query" : "grouped-query");
  if (!t.heads.empty()) {
    const bool rows = s.layout == attnlab::Layout::rows;
    const attnlab::HeadTrace& h = t.heads.front();
    const long d_kv = long(rows ? h.K.cols() + h.V.cols() : h.K.rows() + h.V.rows());
    DimTextWrapped("K/V cache: " + std::to_string(G * d_kv) + " numbers per token" +
        (G < H ? " (" + std::to_string(H * d_kv) + " with a K/V head per query head)" : std::string()));
  }
  ShowEditError(state.document, "kv heads");
}

void PositionsSection(AppState& state, PositionsFields& fields) {
  const attnlab::Scenario& s = state.document.GetScenario();
  const bool any = !s.positions.empty() || s.rope || s.alibi || s.positional_encoding != attnlab::PositionalEncoding::none;
  ImGui::SetNextItemOpen(any, ImGuiCond_Appearing);
  const bool open = ImGui::CollapsingHeader("Positions");
  MarkLastItem(state.on_control, "positions header");
  if (!open) return;
  PositionsRow(state, fields.queries, s.cross_attention() ? "X at" : "Positions", "positions",
               attnlab::Sequence::X, s.n_x());
  if (s.cross_attention())
    PositionsRow(state, fields.keys, "Z at", "context positions", attnlab::Sequence::Z, s.n_z());
  EncodingRow(state);
  RopeRows(state, fields);
  AlibiRows(state, fields.slopes);
  ShowEditError(state.document, kPositionsSource);
}

void LogitsSection(AppState& state) {
  const attnlab::Scenario& s = state.document.GetScenario();
  ImGui::SetNextItemOpen(s.qk_norm || s.softcap > 0, ImGuiCond_Appearing);
  const bool open = ImGui::CollapsingHeader("QK-norm and softcap");
  MarkLastItem(state.on_control, "logits header");
  if (!open) return;
  bool norm = s.qk_norm.has_value();
  if (OptionalToggle(state, "QK-norm (RMSNorm of q and k)", "qk norm",
                     "Qwen3, Gemma 3, OLMo 2: each query and key divided by its root mean square before RoPE", &norm))
    state.document.ApplyEdit(kPositionsSource, [norm](attnlab::Scenario& e) { attnlab::set_qk_norm(e, norm); });
  if (s.qk_norm) {
    const attnlab::QkNorm n = *s.qk_norm;
    ImGui::Indent();
    for (auto scope : {attnlab::QkNorm::Scope::head, attnlab::QkNorm::Scope::width}) {
      const bool head = scope == attnlab::QkNorm::Scope::head;
      const char* label = head ? "over each head (Qwen3)" : "over the width (OLMo 2)";
      if (!head) SameLineIfFits(RadioButtonWidth(label));
      if (ImGui::RadioButton(label, n.scope == scope) && n.scope != scope)
        state.document.ApplyEdit(kPositionsSource, [scope](attnlab::Scenario& e) { attnlab::set_qk_norm_scope(e, scope); });
      MarkLastItem(state.on_control, label);
    }
    bool plus_one = n.plus_one;
    if (OptionalToggle(state, "1 + w (Gemma)", "qk norm plus one", "Gemma's RMSNorm multiplies by 1 + w", &plus_one))
      state.document.ApplyEdit(kPositionsSource, [plus_one](attnlab::Scenario& e) { attnlab::set_qk_norm_plus_one(e, plus_one); });
    ImGui::Unindent();
  }
  bool cap = s.softcap > 0;
  if (OptionalToggle(state, "Softcap (Gemma 2)", "softcap",
                     "The scaled scores s become c tanh(s / c): none can pass c (Gemma 2: c = 50)", &cap))
    state.document.ApplyEdit(kPositionsSource, [cap](attnlab::Scenario& e) { attnlab::set_softcap(e, cap ? 50.0 : 0.0); });
  if (s.softcap > 0) {
    ImGui::SameLine();
    NumberField(state, "c", s.softcap, "The cap: scores well below it pass almost unchanged",
                [](attnlab::Scenario& e, double v) { attnlab::set_softcap(e, v); });
  }
  ShowEditError(state.document, kPositionsSource);
}

}  // namespace attnlab::app
