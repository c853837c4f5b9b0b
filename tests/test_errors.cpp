// Every malformed scenario is refused with one line that names the field and says what was
// expected and what was found.
#include <gtest/gtest.h>

#include "attnlab/model.h"
#include "attnlab/scenario_io.h"

namespace test_errors {

namespace {

using attnlab::ScenarioError;

/// A valid 3-token, width-4, two-head rows scenario that each case breaks in one place.
const char* kValid = R"({
  "format": "attnlab/1", "title": "t", "tokens": ["a", "b", "c"],
  "X": [[1, 0, 0, 1], [0, 1, 0, 1], [1, 1, 0, 0]],
  "W_q": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
  "W_k": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
  "W_v": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
  "num_heads": 2, "mask": "causal"
})";

/// Loads and resolves; returns the error message, or "" when the text is accepted.
std::string error_of(const std::string& text) {
  try {
    attnlab::validate(attnlab::scenario_from_string(text));
    return "";
  } catch (const ScenarioError& e) {
    return e.what();
  }
}

/// kValid with `key` replaced by `value` (raw JSON), or removed when value is empty.
std::string with(const std::string& key, const std::string& value) {
  nlohmann::json doc = nlohmann::json::parse(kValid);
  if (value.empty()) doc.erase(key);
  else doc[key] = nlohmann::json::parse(value);
  return doc.dump();
}

struct ErrorCase {
  std::string name, text, expected;
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

class ScenarioErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ScenarioErrors, RefusedWithMessageNamingTheField) {
  const ErrorCase& c = GetParam();
  const std::string message = error_of(c.text);
  EXPECT_NE(message.find(c.expected), std::string::npos)
      << "expected a message containing: " << c.expected << "\n got: " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "message must be one line: " << message;
}

const std::vector<ErrorCase> kCases = {
    {"EmptyFile", "", "(file): expected a JSON object, got an empty file"},
    {"NotJson", "hello", "(file): not valid JSON"},
    {"Truncated", std::string(kValid).substr(0, 60), "(file): not valid JSON"},
    {"TopLevelArray", "[1, 2]", "(file): expected a JSON object at the top level, got an array of 2"},
    {"NulByte", std::string("{\"X\": [[1]]}\0", 13), "NUL byte"},
    {"DeepNesting", std::string(100, '[') + std::string(100, ']'), "nested at most 32 levels"},
    {"UnknownKeyTypo", with("W_Q", "[[1]]"), "W_Q: unknown key (did you mean \"W_q\"?)"},
    {"WrongFormat", with("format", "\"attnlab/2\""), "format: expected \"attnlab/1\""},
    {"MissingX", with("X", ""), "X: expected the token embeddings"},
    {"NonNumericCell", with("X", "[[1, \"a\", 0, 1], [0, 1, 0, 1], [1, 1, 0, 0]]"), "X[0][1]: expected a number, got string \"a\""},
    {"NullCell", with("X", "[[1, null, 0, 1], [0, 1, 0, 1], [1, 1, 0, 0]]"), "X[0][1]: expected a number, got null"},
    {"NaNAsString", with("X", "[[1, \"NaN\", 0, 1], [0, 1, 0, 1], [1, 1, 0, 0]]"), "X[0][1]: expected a number, got string \"NaN\""},
    {"OutOfDoubleRange", R"({"X": [[1e999, 0]]})", "X[0][0]: expected a finite number, got 1e999 (out of double range)"},
    {"OverflowInsideStringUntouched", R"({"title": "1e999", "X": [[1, -1e999]]})", "X[0][1]: expected a finite number, got -1e999"},
    {"RaggedRows", with("X", "[[1, 0, 0, 1], [0, 1, 0], [1, 1, 0, 0]]"), "X[1]: expected 4 numbers like row 0"},
    {"EmptyX", with("X", "[]"), "X: expected a non-empty matrix"},
    {"EmptyRow", with("X", "[[]]"), "X[0]: expected a non-empty row"},
    {"ZeroHeads", with("num_heads", "0"), "num_heads: expected a whole number from 1 to 256, got 0"},
    {"NegativeHeads", with("num_heads", "-2"), "num_heads: expected a whole number from 1 to 256, got -2"},
    {"FractionalHeads", with("num_heads", "1.5"), "num_heads: expected a whole number from 1 to 256, got 1.5"},
    {"HugeHeads", with("num_heads", "1e12"), "num_heads: expected a whole number from 1 to 256"},
    {"HeadsDoNotDivide", with("num_heads", "3"), "num_heads: 3 heads do not divide H*d_k = 4 (the width of W_q)"},
    {"WkRowsMismatch", with("W_k", "[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]"), "W_k: expected 4x4 (d_z x H*d_k), got 3x4"},
    {"WkWidthMismatch", with("W_k", "[[1, 0], [0, 1], [0, 0], [0, 0]]"), "W_k: expected 4x4 (d_z x H*d_k), got 4x2"},
    {"BiasLength", with("b_q", "[1, 2, 3]"), "b_q: expected 4 numbers (H*d_k), got 3"},
    {"WoRows", with("W_o", "[[1, 0], [0, 1]]"), "W_o: expected 4x? (H*d_v x d_out), got 2x2"},
    {"BoWithoutWo", with("b_o", "[1, 2, 3, 4]"), "b_o: given without W_o"},
    {"MaskValue", with("mask", "[[1, 0, 2], [1, 1, 0], [1, 1, 1]]"), "mask[0][2]: expected 0 or 1, got 2"},
    {"MaskShape", with("mask", "[[1, 0], [1, 1]]"), "mask: expected 3x3 (n_x x n_z), got 2x2"},
    {"MaskWord", with("mask", "\"triangular\""), "mask: expected \"none\", \"causal\", a 0/1 matrix or an object"},
    {"MaskUnknownKey", with("mask", "{\"casual\": true}"), "mask.casual: unknown key"},
    {"PaddingIndex", with("mask", "{\"padding\": [5]}"), "mask.padding[0]: expected a context token index from 0 to 2"},
    {"PaddingNotInteger", with("mask", "{\"padding\": [0.5]}"), "mask.padding[0]: expected a context token index"},
    {"LayoutWord", with("layout", "\"diagonal\""), "layout: expected \"rows\" or \"columns\", got string \"diagonal\""},
    {"ScaleWord", with("scale", "\"sqrt\""), "scale: expected \"inv_sqrt_dk\", \"none\" or a positive number"},
    {"ScaleNegative", with("scale", "-1"), "scale: expected a positive number up to 1e12, got -1"},
    {"ScaleZero", with("scale", "0"), "scale: expected a positive number up to 1e12, got 0"},
    {"LabelCount", with("tokens", "[\"a\", \"b\"]"), "tokens: expected 3 labels (one per token of X), got 2"},
    {"LabelNotString", with("tokens", "[\"a\", 2, \"c\"]"), "tokens[1]: expected a string, got 2"},
    {"ContextLabelsSelf", with("context_tokens", "[\"a\"]"), "context_tokens: expected 3 labels"},
    {"HeadsAndFull", with("heads", "[{}]"), "heads: give either heads or the full matrices"},
    {"HeadsEmpty", R"({"X": [[1, 2]], "heads": []})", "heads: expected at least one head"},
    {"HeadsUnknownKey", R"({"X": [[1, 2]], "heads": [{"W_Q": [[1], [1]]}]})", "heads[0].W_Q: unknown key"},
    {"HeadShapeMismatch",
     R"({"X": [[1, 2, 3]], "heads": [{"W_k": [[1, 0], [0, 1], [1, 1]], "W_q": [[1, 0], [0, 1], [1, 1]]},
                                      {"W_q": [[1, 0], [0, 1], [1, 1]], "W_k": [[1], [0], [1]]}]})",
     "heads[1].W_k: expected 3x2 (d_z x d_k), got 3x1"},
    {"HeadsCountVsNumHeads", R"({"X": [[1, 2]], "num_heads": 3, "heads": [{}]})", "num_heads: expected 1 (the number of entries in heads), got 3"},
    {"IdentityNeedsSameWidth", R"({"X": [[1, 2]], "Z": [[1, 2, 3]]})", "W_k: omitted means identity, which needs d_z = H*d_k, got 3 and 2"},
    {"ZRaggedColumns", with("Z", "[[1, 2], [3]]"), "Z[1]: expected 2 numbers like row 0"},
    {"CrossWidthMismatch", with("Z", "[[1, 2], [3, 4]]"), "W_k: expected 2x4 (d_z x H*d_k), got 4x4"},
    {"ViewNotObject", with("view", "[1]"), "view: expected an object"},
    {"TitleNotString", with("title", "5"), "title: expected a string, got 5"},
    {"ColumnsShapesTransposed",
     R"({"layout": "columns", "X": [[1, 2, 3], [4, 5, 6]], "W_q": [[1, 0, 1], [0, 1, 1]]})",
     "W_q: expected 2x2 (H*d_k x d_x), got 2x3"},
    {"TooManyTokens", std::string(R"({"X": [)") + [] {
       std::string rows;
       for (int i = 0; i < 9000; ++i) rows += (i ? ",[1]" : "[1]");
       return rows;
     }() + "]}",
     "X: expected at most 8192 tokens, got 9000"},
};

INSTANTIATE_TEST_SUITE_P(Table, ScenarioErrors, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return info.param.name; });

TEST(ScenarioErrorsBaseline, TheValidScenarioIsAccepted) { EXPECT_EQ(error_of(kValid), ""); }

// The caller (CLI, window) names the file; the message is about the file as a whole.
TEST(ScenarioErrorsBaseline, MissingFileIsAFileProblem) {
  try {
    attnlab::load_scenario("/nonexistent/scenario.json");
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "(file): cannot open: No such file or directory");
  }
}

TEST(ScenarioErrorsBaseline, NonFiniteValueEditedInIsNamedByCell) {
  attnlab::Scenario s = attnlab::scenario_from_string(kValid);
  (*s.full.W_v)(2, 3) = std::numeric_limits<double>::infinity();
  try {
    attnlab::validate(s);
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "W_v[2][3]: expected a finite number, got inf");
  }
}

TEST(ScenarioErrorsBaseline, ZeroTokensAfterAnEditIsRefused) {
  attnlab::Scenario s = attnlab::scenario_from_string(kValid);
  s.X.resize(0, 4);
  s.tokens.clear();
  try {
    attnlab::validate(s);
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "X: expected at least one token, got 0");
  }
}

}  // namespace

}  // namespace test_errors
