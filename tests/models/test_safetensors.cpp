// The safetensors reader: every header entry checked against the file before any use, each
// refusal one line naming the file and the tensor.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "attnlab/message_text.h"
#include "attnlab/models/safetensors.h"
#include "attnlab/models/weights.h"
#include "attnlab/scenario.h"

namespace attnlab::models {
namespace test_safetensors {
namespace {

/// A safetensors file: the header's JSON as given, then `data_bytes` bytes of data (float i = i).
std::string file_bytes(const std::string& header, std::size_t data_bytes) {
  std::string bytes(8, '\0');
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) bytes[std::size_t(i)] = char((n >> (8 * i)) & 0xff);
  bytes += header;
  for (std::size_t i = 0; i < data_bytes / 4; ++i) {
    const float f = float(i);
    bytes.append(reinterpret_cast<const char*>(&f), 4);
  }
  bytes.resize(8 + header.size() + data_bytes, '\0');
  return bytes;
}

std::vector<TensorInfo> parse(const std::string& bytes) {
  return parse_safetensors_header(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), "t.safetensors");
}

/// The refusal parsing `bytes` gives; fails the test when it parses.
std::string refusal(const std::string& bytes) {
  try {
    parse(bytes);
  } catch (const ScenarioError& e) {
    const std::string message = e.what();
    EXPECT_LE(message.size(), kMaxMessageBytes);
    EXPECT_EQ(message.find('\n'), std::string::npos);
    return message;
  }
  ADD_FAILURE() << "accepted";
  return "";
}

const std::string kTwo =
    R"({"__metadata__": {"format": "pt"}, "a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},)"
    R"( "b": {"dtype": "BF16", "shape": [4], "data_offsets": [24, 32]}})";

TEST(Safetensors, ParsesEntriesAgainstTheFile) {
  const std::vector<TensorInfo> tensors = parse(file_bytes(kTwo, 32));
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors[0].name, "a");
  EXPECT_EQ(tensors[0].shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(tensors[0].begin, 8 + kTwo.size());
  EXPECT_EQ(tensors[1].dtype, DType::bf16);
  EXPECT_EQ(tensors[1].bytes, 8u);
}

TEST(Safetensors, EmptyTensorsOverlapNothing) {
  // The safetensors library gives an empty tensor the offset of the tensor after it; listed before
  // or after that tensor (the sort's order of ties), it is accepted.
  for (const bool empty_first : {true, false}) {
    const std::string empty = R"("e": {"dtype": "F32", "shape": [0], "data_offsets": [8, 8]})";
    const std::string full = R"("a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, )"
                             R"("b": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]})";
    const std::string header = "{" + (empty_first ? empty + ", " + full : full + ", " + empty) + "}";
    const std::vector<TensorInfo> tensors = parse(file_bytes(header, 16));
    EXPECT_EQ(tensors.size(), 3u) << header;
  }
  // Two empty tensors at the same offset, and one at the very end of the data.
  EXPECT_EQ(parse(file_bytes(R"({"e": {"dtype": "F16", "shape": [3, 0], "data_offsets": [0, 0]},)"
                             R"( "f": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]},)"
                             R"( "g": {"dtype": "F32", "shape": [0], "data_offsets": [4, 4]},)"
                             R"( "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})",
                             4))
                .size(),
            4u);
}

TEST(Safetensors, ATensorNamedTwiceIsRefused) {
  const std::string twice = R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},)"
                            R"( "a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})";
  EXPECT_EQ(refusal(file_bytes(twice, 8)), "t.safetensors: a: named twice in the header (the format allows each name once)");
  // A name twice inside __metadata__ or inside an entry is not a tensor named twice.
  EXPECT_EQ(parse(file_bytes(R"({"__metadata__": {"k": "1"}, "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", 4))
                .size(),
            1u);
}

TEST(Safetensors, RefusesEachBrokenHeaderNamingIt) {
  EXPECT_NE(refusal("abc").find("truncated"), std::string::npos);
  EXPECT_NE(refusal(file_bytes(kTwo, 32).substr(0, 40)).find("longer than the file"), std::string::npos);
  EXPECT_NE(refusal(file_bytes("{not json", 0)).find("not valid JSON"), std::string::npos);
  EXPECT_NE(refusal(file_bytes("[1, 2]", 0)).find("JSON object"), std::string::npos);
  // offsets past the end of the data
  EXPECT_NE(refusal(file_bytes(kTwo, 28)).find("t.safetensors: b.data_offsets: end at byte 32 of the data, which holds 28"),
            std::string::npos);
  // end before begin, size not dtype x shape, overlap
  EXPECT_NE(refusal(file_bytes(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}})", 8)).find("before begin"),
            std::string::npos);
  EXPECT_NE(refusal(file_bytes(R"({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", 12)).find("needs 12"),
            std::string::npos);
  const std::string overlapping =
      R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})";
  EXPECT_NE(refusal(file_bytes(overlapping, 12)).find("overlaps \"a\""), std::string::npos);
  EXPECT_NE(refusal(file_bytes(R"({"a": {"dtype": "Q4", "shape": [1], "data_offsets": [0, 1]}})", 1)).find("a.dtype"),
            std::string::npos);
  EXPECT_NE(refusal(file_bytes(R"({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 0]}})", 0)).find("a.shape[0]"),
            std::string::npos);
  EXPECT_NE(refusal(file_bytes(R"({"a": {"dtype": "F32", "shape": [1]}})", 4)).find("missing \"data_offsets\""),
            std::string::npos);
  // shapes whose product would overflow
  EXPECT_NE(refusal(file_bytes(R"({"a": {"dtype": "F32", "shape": [1099511627776, 1099511627776], "data_offsets": [0, 0]}})", 0))
                .find("2^40"),
            std::string::npos);
}

TEST(Safetensors, HeaderLengthBeyondAnyFileIsRefusedBeforeReading) {
  std::string bytes(16, '\xff');
  EXPECT_NE(refusal(bytes).find("header length"), std::string::npos);
}

struct Folder {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("attnlab-st-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Folder() { std::filesystem::create_directories(dir); }
  ~Folder() { std::filesystem::remove_all(dir); }
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir / name, std::ios::binary) << bytes;
  }
};

std::string open_refusal(const Folder& folder) {
  try {
    WeightSet::open(folder.dir);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Weights, ConvertsEveryFloatTypeAndFindsPrefixedNames) {
  Folder folder;
  // F16 1.5 = 0x3e00, -2 = 0xc000, a subnormal 2^-24 = 0x0001; BF16 1.5 = 0x3fc0; F32 and I64 buffer
  std::string data;
  const std::uint16_t halfs[] = {0x3e00, 0xc000, 0x0001, 0x3fc0};
  data.append(reinterpret_cast<const char*>(halfs), 8);
  const float f = 0.25f;
  data.append(reinterpret_cast<const char*>(&f), 4);
  data.append(8, '\0');
  const std::string header =
      R"({"model.h": {"dtype": "F16", "shape": [3], "data_offsets": [0, 6]}, "model.b": {"dtype": "BF16", "shape": [1], "data_offsets": [6, 8]},)"
      R"( "transformer.f": {"dtype": "F32", "shape": [1, 1], "data_offsets": [8, 12]}, "mask": {"dtype": "I64", "shape": [1], "data_offsets": [12, 20]}})";
  std::string bytes = file_bytes(header, 0) + data;
  folder.write("model.safetensors", bytes);
  WeightSet weights = WeightSet::open(folder.dir);
  const VectorFMap h = weights.vector("h", 3);
  EXPECT_EQ(h[0], 1.5f);
  EXPECT_EQ(h[1], -2.0f);
  EXPECT_EQ(h[2], std::ldexp(1.0f, -24));
  EXPECT_EQ(weights.vector("b", 1)[0], 1.5f);
  EXPECT_EQ(weights.matrix("f", 1, 1)(0, 0), 0.25f);
  EXPECT_EQ(weights.dtype_summary(), "BF16+F16+F32");
  try {
    weights.vector("mask", 1);
    ADD_FAILURE() << "an integer tensor used as a weight";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("dtype I64 is not a weight type"), std::string::npos) << e.what();
  }
  try {
    weights.matrix("h", 1, 3);
    ADD_FAILURE() << "a shape that does not match";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("expected shape [1, 3] from config.json, got [3]"), std::string::npos) << e.what();
  }
}

TEST(Weights, ShardsFollowTheirIndex) {
  Folder folder;
  folder.write("a.safetensors", file_bytes(R"({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", 8));
  folder.write("b.safetensors", file_bytes(R"({"y": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", 4));
  folder.write("model.safetensors.index.json", R"({"metadata": {}, "weight_map": {"x": "a.safetensors", "y": "b.safetensors"}})");
  WeightSet weights = WeightSet::open(folder.dir);
  EXPECT_EQ(weights.vector("x", 2)[1], 1.0f);
  EXPECT_EQ(weights.vector("y", 1)[0], 0.0f);
  EXPECT_EQ(weights.file_names().size(), 2u);

  folder.write("model.safetensors.index.json", R"({"weight_map": {"x": "a.safetensors", "y": "missing.safetensors"}})");
  EXPECT_NE(open_refusal(folder).find("\"missing.safetensors\", which is not in the folder"), std::string::npos);
  folder.write("model.safetensors.index.json", R"({"weight_map": {"z": "a.safetensors"}})");
  EXPECT_NE(open_refusal(folder).find("a.safetensors: has no tensor \"z\""), std::string::npos);
  folder.write("model.safetensors.index.json", R"({"weight_map": {"x": "../a.safetensors"}})");
  EXPECT_NE(open_refusal(folder).find("not a file name in the model's folder"), std::string::npos);
}

TEST(Weights, NoWeightsFileIsOneLine) {
  Folder folder;
  EXPECT_NE(open_refusal(folder).find("weights: no model.safetensors or model.safetensors.index.json"), std::string::npos);
}

}  // namespace
}  // namespace test_safetensors
}  // namespace attnlab::models
