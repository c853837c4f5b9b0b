#pragma once
/// A lesson: the computation as a sequence of steps, one stage at a time, for the window's
/// presenter mode and `attnlab-cli export --lesson`. A scenario file may carry its own under
/// `view.lesson` (docs/FORMAT.md); otherwise every stage the scenario has, in computation order.
/// Also the text of a step: its title, its formula in the layout's notation and an explanation
/// with the live numbers.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/scenario.h"
#include "attnlab/stage.h"
#include "attnlab/trace.h"

namespace attnlab::lesson {

/// A step shows one stage (stage.h): any row with a lesson order, `heads` every head's weights,
/// `W_o` the output projection itself. Files name it by the table's name.

struct Cell {
  int row = 0, col = 0;  ///< 0-based, in the matrix as the file's layout shows it
};

struct Step {
  StageId kind = StageId::inputs;
  int head = -1;            ///< 0-based query head; -1: whichever head the presenter has selected
                            ///< (one the scenario no longer has: its last head)
  std::string caption;      ///< the author's words, shown above the generated explanation
  bool predict = false;     ///< hide the step's result until it is revealed
  std::vector<Cell> highlight;  ///< cells to outline (any outside the matrix are skipped)
};

struct Lesson {
  std::string title;
  std::vector<Step> steps;
};

/// Every stage the scenario has, in computation order, the weights asking for a prediction:
/// inputs, X_pos (with an encoding), Q, K, V, Q_rot and K_rot (RoPE), scores, scaled (unless the
/// scale is 1), bias (ALiBi), masked (with a mask or ALiBi), weights, head
/// output, then with several heads or a W_o: heads (several), concat (several), W_o, output.
Lesson default_lesson(const Scenario& s);

/// Reads a `view.lesson` object. Throws ScenarioError naming the field, e.g.
/// `view.lesson.steps[2].stage: expected one of inputs, Q, ..., got "foo"`.
Lesson parse_lesson(const nlohmann::json& lesson);
/// The lesson to present: `view.lesson` when the scenario has one, else default_lesson().
/// Throws ScenarioError for a malformed one (the loader refuses such files before).
Lesson lesson_of(const Scenario& s);
/// The inverse of parse_lesson.
nlohmann::json to_json(const Lesson& lesson);

/// Edits of the scenario's lesson (the presenter's authoring): `lesson` becomes `view.lesson`,
/// checked as a file's would be (throws ScenarioError naming the field, as parse_lesson).
void set_lesson(Scenario& s, const Lesson& lesson);
/// Drops `view.lesson`: the scenario presents its default lesson again.
void clear_lesson(Scenario& s);

/// e.g. "Scores: every query against every key (head 2)".
std::string step_title(const Step& step, const Scenario& s, int head);
/// The step's equation in the layout's notation, e.g. rows "S = Q K^T", columns "S = K^T Q".
std::string step_formula(const Step& step, const Scenario& s, int head);
/// One or two sentences with the live numbers and the tokens' names, speaking of rows or columns
/// as the layout has them. `head` 0-based.
std::string step_explanation(const Step& step, const Scenario& s, const Trace& t, int head);

/// One head's whole computation in one line, e.g. rows "A = softmax_row(Q K^T / \u221Ad_k),
/// Y = A V".
std::string attention_summary(const Scenario& s);

}  // namespace attnlab::lesson
