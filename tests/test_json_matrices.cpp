// The large matrices read straight from a scenario file's text (core/src/json_matrices.h): every
// number bit for bit as the general JSON reader read it, only unmistakable matrices taken, and a
// file read this way equal to the same file read by the general reader.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attnlab/random.h"
#include "attnlab/scenario_io.h"
#include "json_matrices.h"

namespace test_json_matrices {
namespace {

using nlohmann::json;

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

double from_bits(std::uint64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

/// What the general reader makes of `text` as a matrix entry: nlohmann's number, as a double.
double general(const std::string& text) { return json::parse(text).get<double>(); }

/// read_json_number's value of the whole of `text`, or nothing when it refuses or stops early.
bool fast(const std::string& text, double& out) {
  const char* p = text.c_str();
  return attnlab::read_json_number(p, out) && *p == '\0';
}

void ExpectAsGeneral(const std::string& text) {
  double x = 0;
  ASSERT_TRUE(fast(text, x)) << text;
  EXPECT_EQ(bits(x), bits(general(text))) << text << ": " << x << " against " << general(text);
}

TEST(JsonNumber, RandomDoublesPrintedEveryWayReadBitForBitAsStrtodAndTheGeneralReader) {
  std::mt19937_64 random(38);
  std::vector<double> values = {0.0, -0.0, 1e308, -1e308, std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::min(), std::numeric_limits<double>::denorm_min(),
                                -std::numeric_limits<double>::denorm_min(), 0.1, 1.0 / 3.0, 123456789012345678.0};
  for (int i = 0; i < 4000; ++i) {
    double x = from_bits(random());  // every exponent, subnormals included
    if (!std::isfinite(x)) continue;
    values.push_back(x);
    values.push_back(from_bits(random() & 0x800FFFFFFFFFFFFFull));  // subnormal
    values.push_back(std::normal_distribution<double>(0, 0.02)(random));  // weights as models have them
  }
  int checked = 0;
  for (const double x : values) {
    char text[512];  // %.20f of 1e308: 330 characters
    for (const char* format : {"%.17g", "%.15g", "%.9g", "%.3g", "%.16e", "%.0e", "%.20f"}) {
      std::snprintf(text, sizeof text, format, x);
      if (std::strchr(text, 'e') == nullptr && std::strchr(text, '.') == nullptr) continue;  // a whole number: below
      double y = 0;
      if (!std::isfinite(std::strtod(text, nullptr))) {  // DBL_MAX to 15 digits rounds up: beyond double
        ASSERT_FALSE(fast(text, y)) << text;
        ASSERT_THROW(general(text), json::exception) << text;
        continue;
      }
      ASSERT_TRUE(fast(text, y)) << text;
      ASSERT_EQ(bits(y), bits(std::strtod(text, nullptr))) << text;
      ASSERT_EQ(bits(y), bits(general(text))) << text;
      ++checked;
    }
    const std::string dumped = json(x).dump();  // how the files are written
    double y = 0;
    ASSERT_TRUE(fast(dumped, y)) << dumped;
    ASSERT_EQ(bits(y), bits(x)) << dumped << " does not read back as the number written";
  }
  std::printf("%d printed numbers read as strtod reads them\n", checked);
}

TEST(JsonNumber, ManyDigitsWholeNumbersAndTheSignOfZeroAsTheGeneralReader) {
  for (const char* text : {"0", "-0", "-0.0", "-0e0", "0e-5", "1E5", "1e+5", "1e-5", "7", "-12",
                           "9007199254740993", "-9007199254740993", "18446744073709551615", "18446744073709551616",
                           "-9223372036854775808", "-9223372036854775809", "1.7976931348623157e308",
                           "2.2250738585072011e-308", "4.9406564584124654e-324", "2.4703282292062328e-324"})
    ExpectAsGeneral(text);
  // Eight hundred digits: the last ones still decide the rounding (a halfway case and beyond it).
  std::string halfway = "9007199254740993";
  ExpectAsGeneral(halfway + "." + std::string(800, '0'));
  ExpectAsGeneral(halfway + "." + std::string(800, '0') + "1");
  ExpectAsGeneral("0." + std::string(400, '0') + "1e400");
  ExpectAsGeneral("1" + std::string(300, '0'));
  double zero = 1;
  ASSERT_TRUE(fast("-0", zero));
  EXPECT_FALSE(std::signbit(zero)) << "\"-0\" is a whole number to the general reader: +0";
  ASSERT_TRUE(fast("-0.0", zero));
  EXPECT_TRUE(std::signbit(zero));
}

TEST(JsonNumber, RefusesWhatIsNotAJsonNumberOrNotADouble) {
  for (const char* text : {"", "-", "+1", ".5", "1.", "01", "-01", "1e", "1e+", "1.e5", "0x10", "NaN", "nan",
                           "inf", "-Infinity", "1e400", "-1e400", " 1", "\"1\"", "true", "null"}) {
    double x = 0;
    EXPECT_FALSE(fast(text, x)) << "\"" << text << "\" read as " << x;
  }
  // Below the smallest subnormal: refused here (the matrix is left to the general reader) or 0,
  // never anything else.
  double tiny = 1;
  if (fast("1e-400", tiny)) {
    EXPECT_EQ(bits(tiny), bits(0.0));
  }
}

std::vector<std::string> FieldsOf(const std::string& text) {
  std::vector<std::string> fields;
  for (const attnlab::TextMatrix& m : attnlab::find_text_matrices(text)) {
    fields.push_back(m.field);
    EXPECT_EQ(text[m.begin], '[');
    EXPECT_EQ(text[m.end - 1], ']');
  }
  return fields;
}

TEST(TextMatrices, TakesTheMatricesAtTheFieldsReadAsMatrices) {
  const std::string text = R"({"X": [[1, 2.5], [-3e2, 0]], "heads": [{"W_q": [[1]], "b_q": [1]},
    {"W_k": [ [ 1 , 2 ] ]}], "kv_heads": [{"W_v": [[4]]}], "W_o": [[1, 2, 3]]})";
  EXPECT_EQ(FieldsOf(text), (std::vector<std::string>{"X", "heads[0].W_q", "heads[1].W_k", "kv_heads[0].W_v", "W_o"}));
  const std::vector<attnlab::TextMatrix> found = attnlab::find_text_matrices(text);
  attnlab::Matrix x(2, 2);
  x << 1, 2.5, -300, 0;
  EXPECT_EQ(found[0].matrix, x);
  EXPECT_EQ(found[0].values(), 6u) << "2 rows and 4 numbers";
  EXPECT_EQ(text.substr(found[2].begin, found[2].end - found[2].begin), "[ [ 1 , 2 ] ]");
}

TEST(TextMatrices, LeavesEverythingElseToTheGeneralReader) {
  // Not at a matrix field, or not only numbers in rows of one length: nothing taken.
  for (const char* text : {R"({"mask": [[1, 0], [1, 1]], "view": {"X": [[1]]}, "title": "\"X\": [[1]]"})",
                           R"({"X": [[1, 2], [3]]})", R"({"X": [[1, true]]})", R"({"X": [[]]})", R"({"X": []})",
                           R"({"X": [[+1]]})", R"({"X": [[1e999]]})", R"({"X": [[1], 2]})",
                           R"({"X": [[1, 2,]]})", R"({"X" [[1]]})", R"({"W\u005fq": [[1]]})", R"({"Xs": [[1]]})",
                           R"({"heads": [[[1]]]})", R"({"heads": [{"W_o": [[1]]}]})", R"([{"X": [[1]]}])"})
    EXPECT_TRUE(FieldsOf(text).empty()) << text;
  // A string's escaped quote does not end it: the brackets after it are in the string.
  EXPECT_TRUE(FieldsOf(R"({"title": "a \" \"X\": [[1]]", "Z": "x"})").empty());
  EXPECT_EQ(FieldsOf(R"({"title": "a \\", "Z": [[1]]})"), std::vector<std::string>{"Z"});
  EXPECT_EQ(FieldsOf(R"({"heads": [{"W_q": [[1]]}, {}, {"W_q": [[2]]}]})"),
            (std::vector<std::string>{"heads[0].W_q", "heads[2].W_q"}));
}

/// A scenario of `heads` heads of width d on n tokens with every kind of number a file holds.
attnlab::Scenario Layer(int n, int d, int heads) {
  attnlab::Scenario s;
  s.title = "a layer";
  attnlab::RandomSpec spec;
  spec.seed = 38;
  s.X = attnlab::random_matrix(n, d, spec, 1);
  s.X(0, 0) = -0.0;
  s.X(0, 1) = 5e-324;
  s.X(1, 0) = 1e300;
  s.X(1, 1) = 3;
  for (int h = 0; h < heads; ++h) {
    attnlab::Projections p;
    p.W_q = attnlab::random_matrix(d, d / heads, spec, 10 + h);
    p.W_k = attnlab::random_matrix(d, d / heads, spec, 20 + h);
    p.W_v = attnlab::random_matrix(d, d / heads, spec, 30 + h);
    s.heads.push_back(p);
  }
  s.W_o = attnlab::random_matrix(d, d, spec, 40);
  s.mask.causal = true;
  s.view = {{"model", {{"folder", "/models/gpt2"}, {"layer", 5}}}};
  return s;
}

void ExpectSameBits(const attnlab::Matrix& a, const attnlab::Matrix& b, const char* what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(double) * a.size()), 0) << what;
}

TEST(TextMatrices, AFileReadWithThemEqualsTheGeneralReadersBitForBit) {
  const std::string text = attnlab::scenario_to_text(Layer(9, 48, 4));
  ASSERT_EQ(FieldsOf(text).size(), 1u + 4 * 3 + 1) << "X, each head's W_q, W_k, W_v and W_o are taken";
  const attnlab::Scenario fast = attnlab::scenario_from_string(text);
  const attnlab::Scenario general = attnlab::scenario_from_json(json::parse(text));
  ExpectSameBits(fast.X, general.X, "X");
  ASSERT_EQ(fast.heads.size(), general.heads.size());
  for (std::size_t h = 0; h < fast.heads.size(); ++h) {
    ExpectSameBits(*fast.heads[h].W_q, *general.heads[h].W_q, "W_q");
    ExpectSameBits(*fast.heads[h].W_k, *general.heads[h].W_k, "W_k");
    ExpectSameBits(*fast.heads[h].W_v, *general.heads[h].W_v, "W_v");
  }
  ExpectSameBits(*fast.W_o, *general.W_o, "W_o");
  EXPECT_EQ(attnlab::scenario_to_text(fast), text) << "everything else read as the general reader reads it";
}

std::string Refusal(const std::string& text) {
  try {
    attnlab::scenario_from_string(text);
  } catch (const attnlab::ScenarioError& e) {
    return e.what();
  }
  return "(read)";
}

TEST(TextMatrices, AFileRefusedAfterItsMatricesWereTakenGetsTheGeneralReadersMessage) {
  const std::string layer = attnlab::scenario_to_text(Layer(4, 8, 2));
  const std::string body = layer.substr(0, layer.rfind('}'));
  // The matrices are valid; what follows them is not, and the message names it, line and column
  // counted in the file as it is (not in the text left once the matrices are out).
  EXPECT_EQ(Refusal(body + ", \"X\": [[1]]}"), "X: duplicate key (given twice in one object)");
  EXPECT_EQ(Refusal(body + ", \"colour\": 1}"), "colour: unknown key");
  // Column 12 of the file (in the text left once X is out, the end is at column 11).
  EXPECT_EQ(Refusal(R"({"X": [[1]])"), "(file): not valid JSON: parse error at line 1, column 12: syntax error while "
                                       "parsing object - unexpected end of input; expected '}'");
  const std::string broken = Refusal(body + ", }");
  EXPECT_NE(broken.find("not valid JSON"), std::string::npos) << broken;
  EXPECT_NE(broken.find("line " + std::to_string(std::count(body.begin(), body.end(), '\n') + 1)), std::string::npos)
      << broken;
  // A matrix at a field read as one, in a file whose other matrices are of the wrong shape: the
  // general reader's shape message (validate), as before.
  EXPECT_EQ(Refusal(R"({"X": [[1, 2]], "W_q": [[1]], "heads": [{"W_q": [[1]]}]})"),
            "heads: give either heads or the full matrices (W_q, W_k, W_v, b_q, b_k, b_v), not both");
}

}  // namespace
}  // namespace test_json_matrices
