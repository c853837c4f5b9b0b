#include "attnlab/lesson.h"

#include <algorithm>
#include <string>
#include <utility>

#include "attnlab/message_text.h"
#include "attnlab/scenario.h"

namespace attnlab::lesson {
namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxCaption = 2000;
constexpr std::size_t kMaxSteps = 200;

std::string kind_list() {
  std::string out;
  for (StageId id : lesson_stages()) out += std::string(out.empty() ? "" : ", ") + stage_name(id);
  return out;
}

// A stage a lesson step can show, by its name in the file.
std::optional<StageId> step_stage(const json& name) {
  if (!name.is_string()) return std::nullopt;
  const std::optional<StageId> id = stage_from_name(name.get<std::string>());
  if (!id || stage_row(*id).lesson_order < 0) return std::nullopt;
  return id;
}

// What a value is, as the loader's messages say it: string "x", 3, an array of 2, ...
std::string what(const json& v) {
  if (v.is_string()) return "string " + v.dump();
  if (v.is_number()) return v.dump();
  if (v.is_boolean()) return v.dump();
  if (v.is_null()) return "null";
  if (v.is_array()) return "an array of " + std::to_string(v.size());
  return "an object";
}

Cell parse_cell(const json& v, const std::string& field) {
  if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer() ||
      v[0].get<long long>() < 0 || v[1].get<long long>() < 0 || v[0].get<long long>() > 1000000 ||
      v[1].get<long long>() > 1000000)
    refuse(field, "expected [row, col], two whole numbers from 0, got " + what(v));
  return {v[0].get<int>(), v[1].get<int>()};
}

constexpr long long kMaxIndex = 1000000;

bool whole(const json& v, long long lo) {
  return v.is_number_integer() && v.get<long long>() >= lo && v.get<long long>() <= kMaxIndex;
}

// The keys only one stage's steps have: block and tile (tiles), prefill and token (decode).
bool engine_key(const std::string& key) { return key == "block" || key == "tile" || key == "prefill" || key == "token"; }

// The keys only an instrument's steps have: score (finder), the prompts and answers (patching).
bool instrument_key(const std::string& key) {
  return key == "score" || key == "clean" || key == "corrupt" || key == "answer" || key == "wrong";
}

constexpr std::size_t kMaxPrompt = 2000;

std::string score_list() {
  std::string out;
  for (const std::string& name : finder_scores()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

void parse_instrument(const json& v, const std::string& field, Step& step) {
  for (const auto& [key, value] : v.items()) {
    if (!instrument_key(key)) continue;
    const Instrument owner = key == "score" ? Instrument::finder : Instrument::patching;
    if (step.instrument != owner)
      refuse(field + "." + key, std::string("only a ") + (owner == Instrument::finder ? "finder" : "patching") +
                                    " step has " + key);
  }
  if (step.instrument == Instrument::finder) {
    const json* score = v.contains("score") ? &v["score"] : nullptr;
    const auto& names = finder_scores();
    if (!score || !score->is_string() || std::find(names.begin(), names.end(), score->get<std::string>()) == names.end())
      refuse(field + ".score", "expected one of " + score_list() + ", got " + (score ? what(*score) : "nothing"));
    step.score = score->get<std::string>();
  }
  if (step.instrument != Instrument::patching) return;
  PatchPrompts& p = step.patch;
  for (auto [key, out] : {std::pair<const char*, std::string*>{"clean", &p.clean}, {"corrupt", &p.corrupt},
                          {"answer", &p.answer}, {"wrong", &p.wrong}}) {
    const json* text = v.contains(key) ? &v[key] : nullptr;
    if (!text || !text->is_string() || text->get<std::string>().empty() || text->get<std::string>().size() > kMaxPrompt)
      refuse(field + "." + key, "expected a text of 1 to 2000 bytes (as attnlab-cli patch --" + std::string(key) +
                                    " takes it), got " + (text ? what(*text) : "nothing"));
    *out = text->get<std::string>();
  }
}

// A step's "stage": a stage of the table, or an instrument.
void parse_stage(const json& stage, const std::string& field, Step& step) {
  if (stage == "finder" || stage == "patching") {
    step.kind = StageId::none;
    step.instrument = stage == "finder" ? Instrument::finder : Instrument::patching;
    return;
  }
  const std::optional<StageId> kind = step_stage(stage);
  if (!kind) refuse(field, "expected one of " + kind_list() + ", finder, patching, got " + what(stage));
  step.kind = *kind;
}

void parse_tiles(const json& v, const std::string& field, Step& step) {
  if (!v.contains("block")) refuse(field + ".block", "expected [Br, Bc], two whole numbers from 1, got nothing");
  const json& b = v["block"];
  if (!b.is_array() || b.size() != 2 || !whole(b[0], 1) || !whole(b[1], 1))
    refuse(field + ".block", "expected [Br, Bc], two whole numbers from 1, got " + what(b));
  step.block_rows = b[0].get<int>();
  step.block_cols = b[1].get<int>();
  if (!v.contains("tile")) return;
  if (!whole(v["tile"], 0))
    refuse(field + ".tile", "expected a tile from 0 (the first in the loop's order), got " + what(v["tile"]));
  step.tile = v["tile"].get<int>();
}

void parse_decode(const json& v, const std::string& field, Step& step) {
  if (!v.contains("prefill") || !whole(v["prefill"], 0))
    refuse(field + ".prefill", "expected the number of prefilled tokens, a whole number from 0, got " +
                                   (v.contains("prefill") ? what(v["prefill"]) : std::string("nothing")));
  step.prefill = v["prefill"].get<int>();
  if (!v.contains("token")) return;
  if (!whole(v["token"], step.prefill))
    refuse(field + ".token", "expected a decoded token from the prefill's " + std::to_string(step.prefill) +
                                 " on (0-based), got " + what(v["token"]));
  step.token = v["token"].get<int>();
}

void parse_engine(const json& v, const std::string& field, Step& step) {
  for (const auto& [key, value] : v.items()) {
    if (!engine_key(key)) continue;
    const StageId owner = key == "block" || key == "tile" ? StageId::tiles : StageId::decode;
    if (step.kind != owner) refuse(field + "." + key, std::string("only a ") + stage_name(owner) + " step has " + key);
  }
  if (step.kind == StageId::tiles) parse_tiles(v, field, step);
  if (step.kind == StageId::decode) parse_decode(v, field, step);
}

Step parse_step(const json& v, const std::string& field) {
  if (!v.is_object()) refuse(field, "expected an object, got " + what(v));
  for (const auto& [key, value] : v.items())
    if (key != "stage" && key != "head" && key != "caption" && key != "predict" && key != "highlight" &&
        key != "layer" && !engine_key(key) && !instrument_key(key))
      refuse(field + "." + prefix_excerpt(key, 40), "unknown key (a step has stage, head, caption, predict, highlight, layer; a tiles "
                                "step block, tile; a decode step prefill, token; a finder step score; a patching "
                                "step clean, corrupt, answer, wrong)");
  if (!v.contains("stage")) refuse(field + ".stage", "expected one of " + kind_list() + ", finder, patching, got nothing");
  Step step;
  parse_stage(v["stage"], field + ".stage", step);
  if (v.contains("layer")) {
    const json& l = v["layer"];
    if (step.instrument != Instrument::none || step.kind == StageId::tiles || step.kind == StageId::decode ||
        step.kind == StageId::lines)
      refuse(field + ".layer", "a finder, patching, tiles, decode or lines step shows no other layer");
    if (!l.is_number_integer() || l.get<long long>() < 0 || l.get<long long>() > 1000)
      refuse(field + ".layer", "expected a layer of the document's model from 0 (the first) to 1000, got " + what(l));
    step.layer = l.get<int>();
  }
  if (v.contains("head")) {
    const json& h = v["head"];
    if (!h.is_number_integer() || h.get<long long>() < 0 || h.get<long long>() > 255)
      refuse(field + ".head", "expected a head from 0 (the first) to 255, got " + what(h));
    step.head = h.get<int>();
  }
  if (v.contains("caption")) {
    const json& c = v["caption"];
    if (!c.is_string() || c.get<std::string>().size() > kMaxCaption)
      refuse(field + ".caption", "expected a string of at most 2000 bytes, got " +
                                   (c.is_string() ? "one of " + std::to_string(c.get<std::string>().size()) : what(c)));
    step.caption = c.get<std::string>();
  }
  if (v.contains("predict")) {
    if (!v["predict"].is_boolean()) refuse(field + ".predict", "expected true or false, got " + what(v["predict"]));
    step.predict = v["predict"].get<bool>();
  }
  if (v.contains("highlight")) {
    const json& cells = v["highlight"];
    if (!cells.is_array() || cells.size() > 10000)
      refuse(field + ".highlight", "expected an array of [row, col] cells, got " + what(cells));
    for (std::size_t i = 0; i < cells.size(); ++i)
      step.highlight.push_back(parse_cell(cells[i], field + ".highlight[" + std::to_string(i) + "]"));
  }
  parse_engine(v, field, step);
  parse_instrument(v, field, step);
  return step;
}

}  // namespace

const std::vector<std::string>& finder_scores() {
  static const std::vector<std::string> names = {"previous_token", "first_token", "duplicate_token", "induction",
                                                 "local_span"};
  return names;
}

bool needs_model(const Step& step) { return step.layer >= 0 || step.instrument != Instrument::none; }

Lesson default_lesson(const Scenario& s) {
  Lesson lesson;
  lesson.title = s.title;
  auto add = [&lesson](StageId kind, bool predict = false) {
    Step step;
    step.kind = kind;
    step.predict = predict;
    lesson.steps.push_back(std::move(step));
  };
  add(StageId::inputs);
  if (s.positional_encoding == PositionalEncoding::sinusoidal) add(StageId::X_pos);
  for (StageId k : {StageId::Q, StageId::K, StageId::V}) add(k);
  if (s.qk_norm) add(StageId::Q_norm), add(StageId::K_norm);
  if (s.rope) add(StageId::Q_rot), add(StageId::K_rot);
  add(StageId::scores);
  if (s.scale.kind != Scale::Kind::none) add(StageId::scaled);
  if (s.softcap > 0) add(StageId::capped);
  if (s.alibi) add(StageId::bias);
  if (!s.mask.empty() || s.alibi || s.softcap > 0) add(StageId::masked);
  add(StageId::weights, true);
  add(StageId::head_output);
  const bool several = s.head_count() > 1;
  if (several) add(StageId::heads);
  if (several) add(StageId::concat);
  if (s.W_o) add(StageId::W_o);
  if (several || s.W_o) add(StageId::output);
  return lesson;
}

Lesson parse_lesson(const json& v) {
  const std::string field = "view.lesson";
  if (!v.is_object()) refuse(field, "expected an object, got " + what(v));
  for (const auto& [key, value] : v.items())
    if (key != "title" && key != "steps")
      refuse(field + "." + prefix_excerpt(key, 40), "unknown key (a lesson has title, steps)");
  Lesson lesson;
  if (v.contains("title")) {
    if (!v["title"].is_string()) refuse(field + ".title", "expected a string, got " + what(v["title"]));
    lesson.title = v["title"].get<std::string>();
  }
  if (!v.contains("steps") || !v["steps"].is_array() || v["steps"].empty() || v["steps"].size() > kMaxSteps)
    refuse(field + ".steps", "expected an array of 1 to 200 steps, got " +
                               (v.contains("steps") ? what(v["steps"]) : std::string("nothing")));
  for (std::size_t i = 0; i < v["steps"].size(); ++i)
    lesson.steps.push_back(parse_step(v["steps"][i], field + ".steps[" + std::to_string(i) + "]"));
  return lesson;
}

Lesson lesson_of(const Scenario& s) {
  if (!s.view.is_object() || !s.view.contains("lesson")) return default_lesson(s);
  Lesson lesson = parse_lesson(s.view["lesson"]);
  if (lesson.title.empty()) lesson.title = s.title;
  return lesson;
}

json to_json(const Lesson& lesson) {
  json steps = json::array();
  for (const Step& step : lesson.steps) {
    const char* stage = step.instrument == Instrument::finder     ? "finder"
                        : step.instrument == Instrument::patching ? "patching"
                                                                  : stage_name(step.kind);
    json v = {{"stage", stage}};
    if (step.layer >= 0) v["layer"] = step.layer;
    if (step.instrument == Instrument::finder) v["score"] = step.score;
    if (step.instrument == Instrument::patching)
      v["clean"] = step.patch.clean, v["corrupt"] = step.patch.corrupt, v["answer"] = step.patch.answer,
      v["wrong"] = step.patch.wrong;
    if (step.head >= 0) v["head"] = step.head;
    if (!step.caption.empty()) v["caption"] = step.caption;
    if (step.predict) v["predict"] = true;
    if (!step.highlight.empty()) {
      v["highlight"] = json::array();
      for (const Cell& c : step.highlight) v["highlight"].push_back({c.row, c.col});
    }
    if (step.kind == StageId::tiles) v["block"] = {step.block_rows, step.block_cols}, v["tile"] = step.tile;
    if (step.kind == StageId::decode) v["prefill"] = step.prefill;
    if (step.kind == StageId::decode && step.token >= 0) v["token"] = step.token;
    steps.push_back(std::move(v));
  }
  json out = {{"steps", std::move(steps)}};
  if (!lesson.title.empty()) out["title"] = lesson.title;
  return out;
}

void set_lesson(Scenario& s, const Lesson& lesson) {
  json v = to_json(lesson);
  parse_lesson(v);  // refuses, naming the field, what a file with this lesson would be refused for
  if (!s.view.is_object()) s.view = json::object();
  s.view["lesson"] = std::move(v);
}

void clear_lesson(Scenario& s) {
  if (s.view.is_object()) s.view.erase("lesson");
}

}  // namespace attnlab::lesson
