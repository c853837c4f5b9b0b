// attnlab/lesson.h: default lessons follow the scenario's stages, view.lesson round-trips, every
// malformed lesson is refused naming its field, and the explanations carry the live numbers (the
// Vaswani Q2 notebook's printed weights for 'is'; UDL 12.2 in the columns layout).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "attnlab/attention.h"
#include "attnlab/lesson.h"
#include "attnlab/scenario_io.h"
#include "test_support.h"

namespace test_lesson {

namespace {

using attnlab::lesson::Lesson;
using attnlab::lesson::Step;
using attnlab::StageId;

attnlab::Scenario preset(const std::string& name) {
  return attnlab::load_scenario(attnlab::testing::preset_path(name));
}

std::vector<std::string> kinds(const Lesson& lesson) {
  std::vector<std::string> out;
  for (const Step& s : lesson.steps) out.push_back(attnlab::stage_name(s.kind));
  return out;
}

TEST(Lesson, DefaultFollowsTheScenariosStages) {
  using V = std::vector<std::string>;
  // One head, no W_o, no mask: the output is the head's output.
  attnlab::Scenario q2 = preset("vaswani-q2-is-attends");
  q2.view = nlohmann::json::object();
  EXPECT_EQ(kinds(attnlab::lesson::default_lesson(q2)),
            (V{"inputs", "Q", "K", "V", "scores", "scaled", "weights", "head_output"}));
  // Two heads and W_o: every head, the concatenation, W_o and the output.
  attnlab::Scenario udl = preset("udl-12-2-multihead");
  EXPECT_EQ(kinds(attnlab::lesson::default_lesson(udl)),
            (V{"inputs", "Q", "K", "V", "scores", "scaled", "weights", "head_output", "heads", "concat",
               "W_o", "output"}));
  // Unscaled (PyTorch): no scaled step; masked (Phuong & Hutter 4): a masked step.
  EXPECT_EQ(kinds(attnlab::lesson::default_lesson(preset("pytorch-unscaled"))).at(5), "weights");
  const V alg4 = kinds(attnlab::lesson::default_lesson(preset("phuong-hutter-alg4-masked")));
  EXPECT_NE(std::find(alg4.begin(), alg4.end(), "masked"), alg4.end());
  // The weights ask for a prediction, nothing else does.
  for (const Step& s : attnlab::lesson::default_lesson(udl).steps)
    EXPECT_EQ(s.predict, s.kind == StageId::weights) << attnlab::stage_name(s.kind);
}

TEST(Lesson, RoundTripsThroughJson) {
  Lesson lesson;
  lesson.title = "Q2";
  lesson.steps = {{StageId::inputs, -1, "three tokens", false, {}},
                  {StageId::weights, 0, "guess first", true, {{1, 2}, {1, 0}}},
                  {StageId::heads, -1, "", false, {}}};
  const Lesson back = attnlab::lesson::parse_lesson(attnlab::lesson::to_json(lesson));
  EXPECT_EQ(attnlab::lesson::to_json(back), attnlab::lesson::to_json(lesson));
  EXPECT_EQ(back.steps[1].highlight[0].col, 2);
  EXPECT_TRUE(back.steps[1].predict);
  EXPECT_EQ(back.steps[0].head, -1);
}

// Issue 39: the steps that show the document's model (another layer, the head finder, patching).
TEST(Lesson, ModelStepsRoundTripAndSayTheyNeedTheModel) {
  const nlohmann::json file = nlohmann::json::parse(R"({"steps": [
      {"stage": "weights", "layer": 1, "head": 1, "predict": true},
      {"stage": "finder", "score": "induction"},
      {"stage": "patching", "clean": "the cat", "corrupt": "the dog", "answer": " sat", "wrong": " ran"},
      {"stage": "Q"}]})");
  const Lesson lesson = attnlab::lesson::parse_lesson(file);
  ASSERT_EQ(lesson.steps.size(), 4u);
  EXPECT_EQ(lesson.steps[0].layer, 1);
  EXPECT_EQ(lesson.steps[1].instrument, attnlab::lesson::Instrument::finder);
  EXPECT_EQ(lesson.steps[1].score, "induction");
  EXPECT_EQ(lesson.steps[2].patch.corrupt, "the dog");
  EXPECT_EQ(lesson.steps[2].patch.wrong, " ran");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(attnlab::lesson::needs_model(lesson.steps[std::size_t(i)]), i < 3) << i;
  EXPECT_EQ(attnlab::lesson::to_json(attnlab::lesson::parse_lesson(attnlab::lesson::to_json(lesson))),
            attnlab::lesson::to_json(lesson));
  EXPECT_EQ(attnlab::lesson::to_json(lesson)["steps"], file["steps"]);
}

TEST(Lesson, EveryPresetsLessonIsValidAndItsTextIsWritten) {
  for (const char* name : {"vaswani-q1-decoder-over-encoder", "vaswani-q2-is-attends", "vaswani-q3-two-heads",
                           "mlm-general-attention", "udl-12-2-multihead", "pytorch-unscaled",
                           "phuong-hutter-alg3-single-query", "phuong-hutter-alg4-masked",
                           "phuong-hutter-alg5-multihead"}) {
    const attnlab::Scenario s = preset(name);
    const attnlab::Trace t = attnlab::compute(s);
    const Lesson lesson = attnlab::lesson::lesson_of(s);
    ASSERT_FALSE(lesson.steps.empty()) << name;
    for (const Step& step : lesson.steps) {
      const int head = step.head >= 0 ? step.head : 0;
      EXPECT_FALSE(attnlab::lesson::step_title(step, s, head).empty()) << name;
      EXPECT_FALSE(attnlab::lesson::step_formula(step, s, head).empty()) << name;
      EXPECT_FALSE(attnlab::lesson::step_explanation(step, s, t, head).empty()) << name;
    }
  }
}

TEST(Lesson, TheWeightsExplanationCarriesTheNotebooksNumbers) {
  // Notebook 000, Q2: the weights of 'is' are [0.3638497, 0.2022857, 0.4338646].
  const attnlab::Scenario s = preset("vaswani-q2-is-attends");
  const attnlab::Trace t = attnlab::compute(s);
  Step step{StageId::weights, 0, "", false, {{1, 2}}};  // the row of 'is'
  const std::string text = attnlab::lesson::step_explanation(step, s, t, 0);
  EXPECT_NE(text.find("'is' gives 0.43 of its attention to 'translation'"), std::string::npos) << text;
  EXPECT_NE(text.find("row"), std::string::npos) << text;
  step.kind = StageId::head_output;  // 0.36 v(this) + 0.20 v(is) + 0.43 v(translation)
  const std::string mix = attnlab::lesson::step_explanation(step, s, t, 0);
  EXPECT_NE(mix.find("0.36\xC2\xB7v(this) + 0.20\xC2\xB7v(is) + 0.43\xC2\xB7v(translation)"), std::string::npos) << mix;
}

// The numbers of every preset's explanations and prompts in `decimals` as the cells write them
// ("0.20", never "0.2"; a real minus sign, never a hyphen before a digit); `bad` gets the first
// offending number with its step. The ALiBi slope (1/256 is no cell) and decode's rounding
// difference ("2e-16") keep their own forms.
std::string first_misformatted(int decimals) {
  const std::regex number("(^|[^0-9.e])(-?)[0-9]+\\.([0-9]+)");
  for (const auto& e : std::filesystem::directory_iterator(std::string(ATTNLAB_SOURCE_DIR) + "/assets/presets")) {
    const attnlab::Scenario s = attnlab::load_scenario(e.path().string());
    const attnlab::Trace t = attnlab::compute(s);
    for (const Step& step : attnlab::lesson::lesson_of(s).steps) {
      const int head = std::max(0, step.head);
      for (const std::string& text : {attnlab::lesson::step_explanation(step, s, t, head, decimals),
                                      attnlab::lesson::predict_prompt(step, s, t, head, decimals)}) {
        if (text.find(" subtracts ") != std::string::npos) continue;
        for (std::sregex_iterator m(text.begin(), text.end(), number), end; m != end; ++m)
          if ((*m)[2].length() > 0 || int((*m)[3].length()) != decimals)
            return e.path().stem().string() + " " + attnlab::stage_name(step.kind) + ": '" + m->str() + "' in " + text;
      }
    }
  }
  return "";
}

// Issue 26: the explanations wrote "0.2" and "-0.87" where the cells show "0.20" and "−0.87".
TEST(Lesson, NumbersAreWrittenAsTheCellsWriteThem) {
  for (int decimals : {2, 3}) EXPECT_EQ(first_misformatted(decimals), "") << decimals << " decimals";
  const attnlab::Scenario s = preset("vaswani-q2-is-attends");
  const attnlab::Trace t = attnlab::compute(s);
  attnlab::lesson::Step inputs_step;  // a default Step is the inputs stage
  const std::string inputs = attnlab::lesson::step_explanation(inputs_step, s, t, 0);
  EXPECT_NE(inputs.find("'this' is [0.12, \xE2\x88\x92" "0.87, 0.33, 0.45]"), std::string::npos) << inputs;
  const std::string mix = attnlab::lesson::step_explanation({StageId::head_output, 0, "", false, {{1, 2}}}, s, t, 0, 3);
  EXPECT_NE(mix.find("0.364\xC2\xB7v(this) + 0.202\xC2\xB7v(is) + 0.434\xC2\xB7v(translation)"), std::string::npos)
      << mix;
}

TEST(Lesson, EveryHeadsStepComparesTheHeadsWhereTheyCanDiffer) {
  // ALiBi's causal heads: the first query sees only itself (weight 1 in every head, which says
  // nothing); the text compares the heads on the query that sees every key, with the core's weights.
  const attnlab::Scenario s = preset("modern-alibi-slopes");
  const attnlab::Trace t = attnlab::compute(s);
  const std::string text = attnlab::lesson::step_explanation(Step{StageId::heads, -1, "", false, {}}, s, t, 0);
  const Eigen::Index last = t.heads[0].weights.rows() - 1;
  EXPECT_NE(text.find("Where " + std::string("'") + s.tokens[std::size_t(last)] + "' looks most:"), std::string::npos) << text;
  for (std::size_t h = 0; h < 4; ++h) {
    Eigen::Index key = 0;
    const double w = t.heads[h].weights.row(last).maxCoeff(&key);
    char expected[96];
    std::snprintf(expected, sizeof expected, "head %zu at '%s' (%.2f", h,
                  s.tokens[std::size_t(key)].c_str(), w);
    std::string want = expected;
    while (want.back() == '0') want.pop_back();  // format_trimmed
    EXPECT_NE(text.find(want), std::string::npos) << text << " / " << want;
  }
}

TEST(Lesson, ColumnsLayoutSpeaksOfColumns) {
  const attnlab::Scenario s = preset("udl-12-2-multihead");
  const attnlab::Trace t = attnlab::compute(s);
  const Step weights{StageId::weights, 1, "", false, {}};
  const std::string text = attnlab::lesson::step_explanation(weights, s, t, 1);
  EXPECT_NE(text.find("Each column is a softmax"), std::string::npos) << text;
  EXPECT_EQ(attnlab::lesson::step_formula(Step{StageId::scores, -1, "", false, {}}, s, 0), "S = K^T Q");
  EXPECT_EQ(attnlab::lesson::step_title(weights, s, 1),
            "Attention weights: a softmax per query (head 1)");
  // The largest weight the text names is the core's.
  double best = 0;
  for (Eigen::Index q = 0; q < t.heads[1].weights.cols(); ++q)
    for (Eigen::Index k = 0; k < t.heads[1].weights.rows(); ++k) best = std::max(best, t.heads[1].weights(k, q));
  char expected[32];
  std::snprintf(expected, sizeof expected, "gives %.2f", best);
  std::string want = expected;
  while (want.back() == '0') want.pop_back();  // format_trimmed
  EXPECT_NE(text.find(want), std::string::npos) << text << " / " << want;
}

TEST(Lesson, AFileWhoseLessonOutlivedAnEditStillOpensAndPresents) {
  // Saved after deleting a token and a head: the lesson names head 1 and row 2 no longer there.
  nlohmann::json doc = attnlab::scenario_to_json(preset("vaswani-q2-is-attends"));
  doc["view"]["lesson"] = {{"steps", {{{"stage", "weights"}, {"head", 1}, {"highlight", {{9, 9}, {1, 2}}}}}}};
  const attnlab::Scenario s = attnlab::scenario_from_string(doc.dump());
  const attnlab::Trace t = attnlab::compute(s);
  const Lesson lesson = attnlab::lesson::lesson_of(s);
  ASSERT_EQ(lesson.steps.size(), 1u);
  EXPECT_FALSE(attnlab::lesson::step_explanation(lesson.steps[0], s, t, 1).empty());
}

TEST(Lesson, MalformedLessonsAreRefusedNamingTheField) {
  struct Case {
    const char* lesson;
    const char* message;
  };
  const Case cases[] = {
      {R"({"steps": [{"stage": "softmax"}]})", "view.lesson.steps[0].stage: expected one of inputs, Q"},
      {R"({"steps": [{"stage": "Q"}, {"stage": "K", "predict": 1}]})", "view.lesson.steps[1].predict: expected true or false, got 1"},
      {R"({"steps": [{"stage": "weights", "highlight": [[0, -1]]}]})", "view.lesson.steps[0].highlight[0]: expected [row, col]"},
      {R"({"steps": "all"})", "view.lesson.steps: expected an array of 1 to 200 steps, got string \"all\""},
      {R"({"title": "t", "pace": 3, "steps": [{"stage": "Q"}]})", "view.lesson.pace: unknown key"},
  };
  for (const Case& c : cases) {
    try {
      attnlab::lesson::parse_lesson(nlohmann::json::parse(c.lesson));
      ADD_FAILURE() << "accepted " << c.lesson;
    } catch (const attnlab::ScenarioError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(c.message, 0), 0u) << e.what();
    }
  }
}

// The presenter's authoring edits: set a lesson, clear it; valid on every preset, refusals name
// the field, and clearing undoes setting.
TEST(LessonEdits, SetThenClearOnEveryPresetAndRefusalsNameTheField) {
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ATTNLAB_SOURCE_DIR) + "/assets/presets")) {
    if (entry.path().extension() != ".json") continue;
    const attnlab::Scenario original = attnlab::load_scenario(entry.path().string());
    attnlab::Scenario s = original;
    attnlab::lesson::clear_lesson(s);  // a preset may carry its own: start from the default
    const std::string without = attnlab::scenario_to_text(s);
    Lesson lesson = attnlab::lesson::default_lesson(s);
    lesson.title = "authored";
    lesson.steps.front().caption = "authored";
    attnlab::lesson::set_lesson(s, lesson);
    EXPECT_EQ(attnlab::lesson::to_json(attnlab::lesson::lesson_of(s)).dump(), attnlab::lesson::to_json(lesson).dump())
        << entry.path();
    attnlab::lesson::clear_lesson(s);
    EXPECT_EQ(attnlab::scenario_to_text(s), without) << entry.path();
  }
  attnlab::Scenario s = preset("vaswani-q2-is-attends");
  try {
    attnlab::lesson::set_lesson(s, Lesson{});
    ADD_FAILURE() << "a lesson without steps was accepted";
  } catch (const attnlab::ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("view.lesson.steps:", 0), 0u) << e.what();
  }
}

}  // namespace

}  // namespace test_lesson
