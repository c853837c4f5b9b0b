// ModelLab (app/session/model_lab.h) on the tiny real models of tests/fixtures/models, without a
// display: opening a folder off the UI thread, typing, opening a layer as the document through
// the session's guard, and the next token after an edited layer against the model's own run.
#include <gtest/gtest.h>

#include <fstream>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "attnlab/edits.h"
#include "attnlab/scenario_io.h"
#include "session/model_lab.h"
#include "../models/model_folders.h"
#include "../test_support.h"
#include "session_test_support.h"

namespace attnlab::app::testing {
namespace test_model_lab {
namespace {

constexpr double kTolerance = 1e-5;  // float forward pass against double attention + float rest

std::string Fixture(const std::string& name) { return std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/models/" + name; }

class ModelLabTest : public SessionTest {
 protected:
  void SetUp() override {
    SessionTest::SetUp();
    lab_.Init(session_, doc_);
  }
  /// Polls like the window's frames (Session::Poll, then Tick) until the lab is idle.
  bool Settle() {
    return PollUntil([this] {
      lab_.Tick();
      return !lab_.Busy() && !session_.Tasks().Busy();
    });
  }
  void OpenWithText(const std::string& model, const std::string& text) {
    lab_.RequestOpen(Fixture(model));
    lab_.SetText(text);
    ASSERT_TRUE(Settle());
    ASSERT_NE(lab_.Model(), nullptr) << (session_.Pending() ? session_.Pending()->message : "");
    ASSERT_NE(lab_.Run(), nullptr) << lab_.TextError();
  }
  /// Greatest |p - q| over the first `k` predictions, which must name the same tokens.
  static double MaxDifference(const std::vector<models::Prediction>& a, const std::vector<models::Prediction>& b,
                              std::size_t k = 5) {
    EXPECT_GE(a.size(), k);
    EXPECT_GE(b.size(), k);
    double worst = 0;
    for (std::size_t i = 0; i < k && i < a.size() && i < b.size(); ++i) {
      EXPECT_EQ(a[i].id, b[i].id) << "rank " << i;
      worst = std::max(worst, std::abs(a[i].p - b[i].p));
    }
    return worst;
  }

  /// A Qwen2-shaped folder of `layers` x `heads` tiny heads, 8192 positions (model_folders.h).
  std::string WriteWide(const std::string& name, int layers, int heads) {
    const std::string dir = File(name);
    ::attnlab::testing::model_folders::write_wide_qwen2(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/models", dir,
                                                       layers, heads, 8192);
    return dir;
  }
  /// Types `stale`, then at once `newest`, and polls until the lab is idle; prints how long it took.
  void TypeOver(const std::string& stale, const std::string& newest, const std::string& what) {
    const auto started = std::chrono::steady_clock::now();
    lab_.SetText(stale);
    lab_.SetText(newest);
    ASSERT_TRUE(Settle());
    std::cout << "settled after " << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
              << " s" << what << "\n";
  }

  ModelLab lab_;
};

TEST_F(ModelLabTest, OpensOffTheUiThreadAndRunsTheText) {
  lab_.RequestOpen(Fixture("gpt2-f32"));
  EXPECT_TRUE(lab_.Loading());
  EXPECT_EQ(lab_.LoadingName(), "gpt2-f32");
  lab_.SetText("The cat sat on the mat.");
  ASSERT_TRUE(Settle());
  ASSERT_NE(lab_.Model(), nullptr);
  ASSERT_NE(lab_.Run(), nullptr);
  const auto model = models::HfModel::open(Fixture("gpt2-f32"));
  const std::vector<int> ids = model->encode("The cat sat on the mat.");
  EXPECT_EQ(lab_.Run()->run->ids, ids);
  EXPECT_EQ(lab_.Run()->labels, model->labels(ids));
  EXPECT_EQ(lab_.Run()->run->layers.size(), 2u);
  const models::ForwardRun direct = model->transformer().run(ids, 5);
  const double diff = MaxDifference(lab_.Run()->run->next, direct.next);
  std::cout << "max |p - p_direct| = " << diff << "\n";  // the measured error, pass or fail
  EXPECT_LE(diff, 1e-12);
  EXPECT_EQ(lab_.Next().state, NextTokens::State::ModelOnly);
  EXPECT_EQ(session_.Pending(), nullptr);
}

TEST_F(ModelLabTest, TypingSupersedesAndTheNewestTextWins) {
  lab_.RequestOpen(Fixture("gpt2-f32"));
  ASSERT_TRUE(Settle());
  for (const char* text : {"T", "Th", "The", "The c", "The ca", "The cat"}) lab_.SetText(text);
  ASSERT_TRUE(Settle());
  ASSERT_NE(lab_.Run(), nullptr);
  EXPECT_EQ(lab_.Run()->text, "The cat");
  EXPECT_FALSE(lab_.RunStale());
  EXPECT_EQ(lab_.Run()->run->ids, lab_.Model()->encode("The cat"));
}

TEST_F(ModelLabTest, ABadFolderIsOneLineAndTheDocumentStays) {
  const std::uint64_t version = doc_.Version();
  const std::string name = doc_.name;
  lab_.RequestOpen(File("no-such-model"));
  ASSERT_TRUE(Settle());
  EXPECT_EQ(lab_.Model(), nullptr);
  ASSERT_EQ(Asked(), Question::Kind::Error);
  EXPECT_EQ(session_.Pending()->title, "Cannot open model no-such-model");
  EXPECT_EQ(session_.Pending()->message.find('\n'), std::string::npos);
  EXPECT_EQ(doc_.Version(), version);
  EXPECT_EQ(doc_.name, name);
  EXPECT_EQ(lab_.Next().state, NextTokens::State::NoModel);
}

// A text beyond the model's 32 positions runs its first 32 tokens, and says how many it has.
TEST_F(ModelLabTest, TooLongATextRunsItsFirstTokensAndSaysSo) {
  lab_.RequestOpen(Fixture("gpt2-f32"));
  const std::string text = std::string(200, 'a') + " b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h";
  lab_.SetText(text);
  ASSERT_TRUE(Settle());
  ASSERT_NE(lab_.Run(), nullptr) << lab_.TextError();
  const std::vector<int> all = lab_.Model()->encode_to_limit(text);
  ASSERT_GT(all.size(), 32u);
  EXPECT_EQ(lab_.Run()->run->ids, std::vector<int>(all.begin(), all.begin() + 32));
  EXPECT_EQ(lab_.Run()->cut_note, "The text has " + std::to_string(all.size()) +
                                      " tokens, more than the model's 32 positions: the grid shows the first 32.");
  EXPECT_EQ(lab_.TextError(), "");
  lab_.SetText("");
  ASSERT_TRUE(Settle());
  EXPECT_EQ(lab_.TextError(), "");
  EXPECT_EQ(lab_.Next().state, NextTokens::State::NoText);
}

TEST_F(ModelLabTest, ARunThatCannotFitIsRefusedBeforeItStarts) {
  // 64 layers of 64 heads: the grid keeps every layer's and head's weights, 16 KiB x n^2 bytes.
  lab_.RequestOpen(WriteWide("wide", 64, 64));
  std::string text;
  for (int i = 0; i < 6000; ++i) text += " a";
  lab_.SetText(text);
  ASSERT_TRUE(Settle());
  ASSERT_NE(lab_.Model(), nullptr);
  EXPECT_EQ(lab_.Run(), nullptr);
  const std::string expected = "ids: 6000 tokens with every layer's and head's 6000 x 6000 weights kept need about ";
  EXPECT_EQ(lab_.TextError().substr(0, expected.size()), expected) << lab_.TextError();
  EXPECT_NE(lab_.TextError().find("GiB; this machine allows"), std::string::npos) << lab_.TextError();
  EXPECT_EQ(lab_.Next().note, lab_.TextError());
  lab_.SetText(" a a a");  // a short text of the same model runs
  ASSERT_TRUE(Settle());
  ASSERT_NE(lab_.Run(), nullptr) << lab_.TextError();
  EXPECT_EQ(lab_.Run()->run->layers.size(), 64u);
}

TEST_F(ModelLabTest, ANewerTextCancelsTheEncodingOfTheOneBefore) {
  // A split pattern that backtracks on every match: the first text alone would use the whole 5 s
  // budget and end refused. Typed over, its encoding stops, no refusal is shown, the newest runs.
  const std::string dir = File("slow");
  std::filesystem::copy(Fixture("llama-mqa-f32"), dir);
  ::attnlab::testing::model_folders::update_json_file(
      dir + "/tokenizer.json", {{"pre_tokenizer", ::attnlab::testing::model_folders::backtracking_pre_tokenizer()}});
  lab_.RequestOpen(dir);
  ASSERT_TRUE(Settle());
  std::string slow;
  for (int i = 0; i < 4500; ++i) slow += std::string(21, 'a') + "c";
  TypeOver(slow, "ac", " (the slow text alone: refused after its 5 s budget)");
  ASSERT_NE(lab_.Run(), nullptr) << lab_.TextError();
  EXPECT_EQ(lab_.Run()->text, "ac");
  EXPECT_EQ(lab_.TextError(), "");
}

TEST_F(ModelLabTest, ANewerTextStopsTheStaleRunAtItsNextLayer) {
  // 16 layers of 32 heads at 600 tokens: every layer's and head's weights take 740 MB and the run
  // takes about a second. Ids typed in a folder without a tokenizer start the forward pass at once;
  // typed over, the stale run stops before its next layer and only the newest run is delivered (a
  // stale run that finished would be delivered too, and counted by RunSerial).
  const std::string dir = WriteWide("wide", 16, 32);
  std::filesystem::remove(dir + "/tokenizer.json");
  lab_.RequestOpen(dir);
  ASSERT_TRUE(Settle());
  std::string long_ids;
  for (int i = 0; i < 600; ++i) long_ids += "5 ";
  const std::uint64_t serial = lab_.RunSerial();
  TypeOver(long_ids, "5 6", "");
  ASSERT_NE(lab_.Run(), nullptr) << lab_.TextError();
  EXPECT_EQ(lab_.Run()->text, "5 6");
  EXPECT_EQ(lab_.TextError(), "");
  EXPECT_EQ(lab_.RunSerial(), serial + 1) << "the stale run was delivered: it ran to its end";
}

TEST_F(ModelLabTest, AFolderWithoutATokenizerTakesTokenIds) {
  // As the CLI's --ids: "83, 9 40" runs those ids, labelled "#83"; words are refused in one line.
  const std::string dir = File("no-tokenizer");
  std::filesystem::copy(Fixture("gpt2-f32"), dir);
  std::filesystem::remove(dir + "/vocab.json");
  std::filesystem::remove(dir + "/merges.txt");
  lab_.RequestOpen(dir);
  ASSERT_TRUE(Settle());
  ASSERT_NE(lab_.Model(), nullptr);
  EXPECT_EQ(lab_.Model()->tokenizer(), nullptr);
  EXPECT_EQ(lab_.TextError(), "");
  EXPECT_EQ(lab_.Next().note, "Type token ids in the Model panel (the folder has no tokenizer).");
  lab_.SetText("83, 9 40,7");
  ASSERT_TRUE(Settle());
  ASSERT_NE(lab_.Run(), nullptr) << lab_.TextError();
  EXPECT_EQ(lab_.Run()->run->ids, (std::vector<int>{83, 9, 40, 7}));
  EXPECT_EQ(lab_.Run()->labels, (std::vector<std::string>{"#83", "#9", "#40", "#7"}));
  const auto model = models::HfModel::open(Fixture("gpt2-f32"));
  EXPECT_LE(MaxDifference(lab_.Run()->run->next, model->transformer().run({83, 9, 40, 7}, 5).next), 1e-12);
  lab_.SetText("the cat");
  ASSERT_TRUE(Settle());
  EXPECT_EQ(lab_.TextError(),
            "ids: expected token ids separated by commas or spaces (no-tokenizer has no tokenizer to split words), got \"the\"");
  lab_.SetText("83, 400");
  ASSERT_TRUE(Settle());
  EXPECT_EQ(lab_.TextError(), "ids[1]: 400 is outside the vocabulary (0 to 356)");
}

TEST_F(ModelLabTest, AFolderNameWithANewlineIsOneLine) {
  lab_.RequestOpen(File("two\nlines"));
  ASSERT_TRUE(Settle());
  ASSERT_EQ(Asked(), Question::Kind::Error);
  EXPECT_EQ(session_.Pending()->title, "Cannot open model two\\nlines");
  EXPECT_EQ(session_.Pending()->message.find('\n'), std::string::npos) << session_.Pending()->message;
}

TEST_F(ModelLabTest, ALayerBecomesTheDocumentAndAHeadOffChangesTheNextToken) {
  OpenWithText("gpt2-f32", "The cat sat on the mat.");
  lab_.OpenLayer(1, 1);
  ASSERT_TRUE(Settle());
  // The layer as attnlab-cli model --layer 1 makes it, with the clicked head recorded.
  attnlab::Scenario expected = models::layer_scenario(*lab_.Model(), *lab_.Run()->run, 1, "The cat sat on the mat.");
  expected.view["model"]["head"] = 1;
  EXPECT_EQ(attnlab::scenario_to_text(doc_.GetScenario()), attnlab::scenario_to_text(expected));
  EXPECT_EQ(doc_.name, "gpt2-f32-layer-1");  // layers count from 0, as --layer 1
  EXPECT_TRUE(doc_.path.empty());
  EXPECT_EQ(lab_.DocumentLayer(), 1);
  // Unedited: the layer's own output gives the model's prediction back.
  ASSERT_EQ(lab_.Next().state, NextTokens::State::Edited);
  EXPECT_FALSE(lab_.Next().stale);
  const double same = MaxDifference(lab_.Next().edited, lab_.Next().model);
  std::cout << "unedited layer: max |p_edited - p_model| = " << same << "\n";  // the measured error, pass or fail
  EXPECT_LE(same, kTolerance);
  for (int h = 0; h < 2; ++h) {
    ASSERT_TRUE(doc_.ApplyEdit("Heads", [h](attnlab::Scenario& s) { attnlab::set_head_off(s, h, true); }));
    ASSERT_TRUE(Settle());
    const models::ForwardRun off = lab_.Model()->transformer().run(lab_.Run()->run->ids, 5, {{1, h}});
    ASSERT_EQ(lab_.Next().state, NextTokens::State::Edited) << lab_.Next().note;
    EXPECT_EQ(lab_.Next().version, doc_.Version());
    const double diff = MaxDifference(lab_.Next().edited, off.next);
    std::cout << "head " << h << " off: max |p_window - p_model_run| = " << diff << "\n";  // the measured error, pass or fail
    EXPECT_LE(diff, kTolerance);
    doc_.Undo();
  }
}

TEST_F(ModelLabTest, AnEditedDocumentIsGuardedAndAnUnfitLayerSaysWhy) {
  OpenWithText("llama-gqa-bf16", "The dog is in the house.");
  lab_.OpenLayer(0, 0);
  ASSERT_TRUE(Settle());
  ASSERT_EQ(lab_.DocumentLayer(), 0);
  // A token more: the edited layer no longer has the model's shape.
  ASSERT_TRUE(doc_.ApplyEdit("tokens", [](attnlab::Scenario& s) { attnlab::insert_token(s, attnlab::Sequence::X, 0); }));
  ASSERT_TRUE(Settle());
  EXPECT_EQ(lab_.Next().state, NextTokens::State::Failed);
  EXPECT_NE(lab_.Next().note.find("no longer fits"), std::string::npos) << lab_.Next().note;
  // Another layer asks first: the edits are unsaved.
  lab_.OpenLayer(1, 0);
  ASSERT_TRUE(Settle());
  ASSERT_EQ(Asked(), Question::Kind::SaveChanges);
  session_.Answer(Choice::DontSave);
  ASSERT_TRUE(Settle());
  EXPECT_EQ(lab_.DocumentLayer(), 1);
  EXPECT_EQ(lab_.Next().state, NextTokens::State::Edited);
}

TEST_F(ModelLabTest, ASavedLayerReopensItsModelWithItsText) {
  // A layer saved from another run of the window (no model open in this one): opening the file
  // opens its folder off the UI thread, types its text again, and Next token is live.
  const std::string folder = File("qwen2");
  std::filesystem::copy(Fixture("qwen2-f32"), folder);
  const auto model = models::HfModel::open(folder);
  const std::vector<int> ids = model->encode("Hello there!");
  const models::ForwardRun run = model->transformer().run(ids);
  const std::string path = File("saved-layer.json");
  attnlab::save_scenario(models::layer_scenario(*model, run, 1, "Hello there!"), path);
  session_.RequestOpen(path);
  ASSERT_TRUE(Settle());
  ASSERT_NE(lab_.Model(), nullptr) << lab_.Next().note;
  EXPECT_EQ(lab_.Model()->name(), "qwen2");
  EXPECT_EQ(lab_.Text(), "Hello there!");
  ASSERT_NE(lab_.Run(), nullptr);
  EXPECT_EQ(lab_.Run()->run->ids, ids);
  EXPECT_EQ(lab_.DocumentLayer(), 1);
  ASSERT_EQ(lab_.Next().state, NextTokens::State::Edited) << lab_.Next().note;
  EXPECT_LE(MaxDifference(lab_.Next().edited, run.next), kTolerance);

  // The folder moved away: one line says so, and the document stays open.
  const std::string moved = File("moved-layer.json");
  const std::string gone = File("gone");
  std::filesystem::copy(Fixture("qwen2-f32"), gone);
  attnlab::save_scenario(models::layer_scenario(*models::HfModel::open(gone), run, 0, "Hello there!"), moved);
  std::filesystem::remove_all(gone);
  session_.RequestOpen(moved);
  ASSERT_TRUE(Settle());
  EXPECT_EQ(doc_.path, moved);
  EXPECT_EQ(lab_.Model()->name(), "qwen2");  // the open model stays
  EXPECT_EQ(lab_.Next().note, "This layer's model folder \"" + gone +
                                  "\" is not there (moved or deleted): Locate\xE2\x80\xA6 opens it where it is now.");
  EXPECT_TRUE(lab_.Next().offer_locate);

  // Locate…: a folder of other weights is refused in one line and changes nothing; the folder of
  // the layer's weights, wherever it is now, makes it a layer of its model again, and the
  // document records where (an edit: Save writes it).
  lab_.Locate(Fixture("qwen2-bf16-sharded"));
  ASSERT_TRUE(Settle());
  EXPECT_EQ(lab_.DocumentLayer(), -1);
  EXPECT_EQ(lab_.Next().note.rfind("The weights in \"", 0), 0u) << lab_.Next().note;
  EXPECT_TRUE(lab_.Next().offer_locate);
  EXPECT_EQ(lab_.DocumentFolder(), gone);
  EXPECT_FALSE(doc_.IsDirty());
  const std::string found = File("found");
  std::filesystem::copy(Fixture("qwen2-f32"), found);
  lab_.Locate(found);
  ASSERT_TRUE(Settle());
  EXPECT_EQ(lab_.DocumentFolder(), found);
  EXPECT_TRUE(doc_.IsDirty());
  EXPECT_EQ(lab_.DocumentLayer(), 0);
  ASSERT_EQ(lab_.Next().state, NextTokens::State::Edited) << lab_.Next().note;
  EXPECT_FALSE(lab_.Next().offer_locate);
}

// A layer made from other weights than its folder holds now (the folder's checkpoint replaced):
// one line says so and the document is not taken for a layer of it (its Next token would be wrong).
TEST_F(ModelLabTest, ALayerOfOtherWeightsSaysSoInsteadOfPredicting) {
  const std::string folder = File("qwen2-changed");
  std::filesystem::copy(Fixture("qwen2-f32"), folder);
  const auto model = models::HfModel::open(folder);
  const models::ForwardRun run = model->transformer().run(model->encode("Hello there!"));
  const std::string path = File("layer-of-other-weights.json");
  attnlab::save_scenario(models::layer_scenario(*model, run, 1, "Hello there!"), path);
  {  // the first number of the file becomes 0.5: same shapes, other weights
    std::fstream f(folder + "/model.safetensors", std::ios::in | std::ios::out | std::ios::binary);
    std::uint64_t header = 0;
    f.read(reinterpret_cast<char*>(&header), sizeof header);
    const float half = 0.5f;
    f.seekp(std::streamoff(8 + header));
    f.write(reinterpret_cast<const char*>(&half), sizeof half);
  }
  EXPECT_NE(models::HfModel::open(folder)->weights_id(), model->weights_id());
  session_.RequestOpen(path);
  ASSERT_TRUE(Settle());
  ASSERT_NE(lab_.Model(), nullptr) << lab_.Next().note;
  EXPECT_EQ(lab_.DocumentLayer(), -1);
  EXPECT_EQ(lab_.Next().note, "The weights in \"" + folder +
                                  "\" are not the ones this layer was made from (another checkpoint, or changed "
                                  "since): Next token would be wrong. Locate\xE2\x80\xA6 opens the folder it was made from.");
  EXPECT_TRUE(lab_.Next().offer_locate);
}

TEST_F(ModelLabTest, ASavedLayerFileIsALayerOfTheModelAgain) {
  OpenWithText("qwen2-f32", "Hello there!");
  lab_.OpenLayer(0, 0);
  ASSERT_TRUE(Settle());
  ASSERT_TRUE(doc_.ApplyEdit("Heads", [](attnlab::Scenario& s) { attnlab::set_head_off(s, 1, true); }));
  const std::string path = File("layer.json");
  session_.SaveAs(path);
  ASSERT_TRUE(Settle());
  lab_.SetText("Something else");
  ASSERT_TRUE(Settle());
  session_.RequestOpen(path);
  ASSERT_TRUE(Settle());
  ASSERT_EQ(doc_.path, path);
  ASSERT_EQ(lab_.DocumentLayer(), 0);
  ASSERT_EQ(lab_.Next().state, NextTokens::State::Edited) << lab_.Next().note;
  const models::ForwardRun off =
      lab_.Model()->transformer().run(lab_.Model()->encode("Hello there!"), 5, {{0, 1}});
  const double diff = MaxDifference(lab_.Next().edited, off.next);
  std::cout << "saved layer, head 1 off: max |p_window - p_model_run| = " << diff << "\n";  // the measured error, pass or fail
  EXPECT_LE(diff, kTolerance);
}


// ---- encoders: a sentence pair, the masked word, a layer of a pair -----------------------------

constexpr const char* kBertText = "the cat sat on the [MASK].";
constexpr const char* kBertPair = "it was happy.";

/// `attnlab-cli model DIR --text T --pair P --attention [more]`'s JSON: the reference the window's
/// run is held to.
nlohmann::json CliModel(const std::string& dir, const std::string& text, const std::string& pair,
                        const std::string& more = "") {
  const auto quote = [](const std::string& s) { return "'" + s + "'"; };  // the texts hold no quote
  const ::attnlab::testing::ShellResult r = ::attnlab::testing::run_shell(
      std::string(ATTNLAB_CLI) + " model " + quote(dir) + " --text " + quote(text) +
      (pair.empty() ? "" : " --pair " + quote(pair)) + " --attention " + more);
  EXPECT_EQ(r.status, 0) << r.out;
  return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

/// Greatest |p - p_cli| over the CLI's top list, whose ids must lead `window` in the same order.
double MaxMaskedDifference(const std::vector<models::Prediction>& window, const nlohmann::json& top) {
  double worst = 0;
  EXPECT_GE(window.size(), top.size());
  for (std::size_t i = 0; i < top.size() && i < window.size(); ++i) {
    EXPECT_EQ(window[i].id, top[i]["id"].get<int>()) << "rank " << i;
    worst = std::max(worst, std::abs(window[i].p - top[i]["p"].get<double>()));
  }
  return worst;
}

TEST_F(ModelLabTest, AnEncodersPairRunsAsTheCliAndPredictsTheMaskedWord) {
  OpenWithText("bert-f32", kBertText);
  lab_.SetPair(kBertPair);
  ASSERT_TRUE(Settle());
  ASSERT_NE(lab_.Run(), nullptr) << lab_.TextError();
  const nlohmann::json cli = CliModel(Fixture("bert-f32"), kBertText, kBertPair);
  const ModelRun& run = *lab_.Run();
  EXPECT_EQ(run.run->ids, cli["ids"].get<std::vector<int>>());
  EXPECT_EQ(run.run->types, cli["types"].get<std::vector<int>>());
  // The second sentence's tokens, as the Model view marks them: type 1 but its closing [SEP].
  int second = 0;
  for (std::size_t i = 0; i < run.sequence.size(); ++i) second += run.sequence[i] == 1;
  EXPECT_EQ(second, 4);  // ␣it ␣was ␣happy ␣.
  double worst = 0;
  for (std::size_t l = 0; l < run.run->layers.size(); ++l)
    for (std::size_t h = 0; h < run.run->layers[l].weights.size(); ++h) {
      const models::MatrixF& w = run.run->layers[l].weights[h];
      const nlohmann::json& rows = cli["layers"][l]["heads"][h]["weights"];
      for (Eigen::Index i = 0; i < w.rows(); ++i)
        for (Eigen::Index j = 0; j < w.cols(); ++j)
          worst = std::max(worst, std::abs(double(w(i, j)) - rows[std::size_t(i)][std::size_t(j)].get<double>()));
    }
  std::cout << "pair: max |w_window - w_cli| = " << worst << "\n";  // the measured error, pass or fail
  EXPECT_LE(worst, 1e-6);
  const NextTokens& next = lab_.Next();
  ASSERT_EQ(next.state, NextTokens::State::ModelOnly) << next.note;
  EXPECT_TRUE(next.masked_word);
  EXPECT_EQ(next.position, cli["masked"][0]["position"].get<int>());
  const double diff = MaxMaskedDifference(next.model, cli["masked"][0]["top"]);
  std::cout << "masked word: max |p_window - p_cli| = " << diff << "\n";  // the measured error, pass or fail
  EXPECT_LE(diff, 1e-6);
}

TEST_F(ModelLabTest, AClickedWordIsHiddenBehindTheMaskToken) {
  // Hiding "mat" is typing [MASK] in its place: the CLI's masked word on that text.
  OpenWithText("bert-f32", "the cat sat on the mat.");
  lab_.SetPair(kBertPair);
  ASSERT_TRUE(Settle());
  EXPECT_EQ(lab_.Next().position, -1);
  EXPECT_EQ(lab_.Next().note, "No word to predict: click a word of the text in the Model panel to hide it behind "
                              "[MASK], or type [MASK] in the text.");
  EXPECT_TRUE(lab_.Next().model.empty());
  lab_.ToggleHidden(6);
  ASSERT_TRUE(Settle());
  const nlohmann::json cli = CliModel(Fixture("bert-f32"), kBertText, kBertPair);
  ASSERT_NE(lab_.Run(), nullptr) << lab_.TextError();
  EXPECT_EQ(lab_.Run()->run->ids, cli["ids"].get<std::vector<int>>());
  EXPECT_EQ(lab_.Run()->hidden, 6);
  EXPECT_EQ(lab_.Run()->hidden_label, "\xE2\x90\xA3mat");
  EXPECT_EQ(lab_.Next().position, 6);
  EXPECT_LE(MaxMaskedDifference(lab_.Next().model, cli["masked"][0]["top"]), 1e-6);
  // Typing on keeps the word hidden; clicking it again shows it.
  lab_.SetText("the cat sat on the mat!");
  ASSERT_TRUE(Settle());
  EXPECT_EQ(lab_.Next().position, 6);
  lab_.ToggleHidden(6);
  ASSERT_TRUE(Settle());
  EXPECT_EQ(lab_.Run()->hidden, -1);
  EXPECT_EQ(lab_.Next().position, -1);
  // [CLS] is not a word: nothing is hidden, and nothing loops.
  lab_.ToggleHidden(0);
  ASSERT_TRUE(Settle());
  EXPECT_EQ(lab_.Run()->hidden, -1);
  EXPECT_FALSE(lab_.RunStale());
}

TEST_F(ModelLabTest, ALayerOfAPairRecordsBothTextsAndAHeadOffChangesTheMaskedWord) {
  OpenWithText("bert-f32", kBertText);
  lab_.SetPair(kBertPair);
  ASSERT_TRUE(Settle());
  lab_.OpenLayer(1, 0);
  ASSERT_TRUE(Settle());
  ASSERT_EQ(lab_.DocumentLayer(), 1);
  const nlohmann::json& view = doc_.GetScenario().view["model"];
  EXPECT_EQ(view["text"], kBertText);
  EXPECT_EQ(view["pair"], kBertPair);
  EXPECT_FALSE(doc_.GetScenario().mask.causal);
  ASSERT_EQ(lab_.Next().state, NextTokens::State::Edited) << lab_.Next().note;
  const nlohmann::json plain = CliModel(Fixture("bert-f32"), kBertText, kBertPair);
  EXPECT_LE(MaxMaskedDifference(lab_.Next().edited, plain["masked"][0]["top"]), kTolerance);
  ASSERT_TRUE(doc_.ApplyEdit("Heads", [](attnlab::Scenario& s) { attnlab::set_head_off(s, 0, true); }));
  ASSERT_TRUE(Settle());
  const nlohmann::json off = CliModel(Fixture("bert-f32"), kBertText, kBertPair, "--heads-off 1.0");
  ASSERT_EQ(lab_.Next().version, doc_.Version());
  const double diff = MaxMaskedDifference(lab_.Next().edited, off["masked"][0]["top"]);
  std::cout << "pair, head 1.0 off: max |p_window - p_cli| = " << diff << "\n";  // the measured error, pass or fail
  EXPECT_LE(diff, kTolerance);
  EXPECT_LE(MaxMaskedDifference(lab_.Next().model, plain["masked"][0]["top"]), 1e-6);

  // Saved and reopened with another text typed: both texts are typed again, and the edited layer
  // predicts as before.
  const std::string path = File("bert-layer.json");
  session_.SaveAs(path);
  ASSERT_TRUE(Settle());
  lab_.SetPair("");
  lab_.SetText("something [MASK] else");
  ASSERT_TRUE(Settle());
  session_.RequestOpen(path);
  ASSERT_TRUE(Settle());
  EXPECT_EQ(lab_.Text(), kBertText);
  EXPECT_EQ(lab_.Pair(), kBertPair);
  ASSERT_EQ(lab_.DocumentLayer(), 1);
  ASSERT_EQ(lab_.Next().state, NextTokens::State::Edited) << lab_.Next().note;
  EXPECT_LE(MaxMaskedDifference(lab_.Next().edited, off["masked"][0]["top"]), kTolerance);
}

TEST_F(ModelLabTest, ALayerOfAHiddenWordRunsItsOwnIdsWithThePairsTypes) {
  // The layer's ids hide a word the reopened text shows: the prediction runs the layer's own ids,
  // with the token types of the recorded pair.
  OpenWithText("bert-f32", "the cat sat on the mat.");
  lab_.SetPair(kBertPair);
  lab_.ToggleHidden(6);
  ASSERT_TRUE(Settle());
  lab_.OpenLayer(0, 0);
  ASSERT_TRUE(Settle());
  ASSERT_TRUE(doc_.ApplyEdit("Heads", [](attnlab::Scenario& s) { attnlab::set_head_off(s, 1, true); }));
  const std::string path = File("hidden-layer.json");
  session_.SaveAs(path);
  ASSERT_TRUE(Settle());
  lab_.ToggleHidden(6);
  session_.RequestOpen(path);
  ASSERT_TRUE(Settle());
  ASSERT_EQ(lab_.DocumentLayer(), 0);
  ASSERT_EQ(lab_.Next().state, NextTokens::State::Edited) << lab_.Next().note;
  EXPECT_EQ(lab_.Next().position, 6);
  const nlohmann::json off = CliModel(Fixture("bert-f32"), kBertText, kBertPair, "--heads-off 0.1");
  EXPECT_LE(MaxMaskedDifference(lab_.Next().edited, off["masked"][0]["top"]), kTolerance);
}

TEST_F(ModelLabTest, AFilesPairThatIsNotAStringIsOneLineNamingIt) {
  const auto model = models::HfModel::open(Fixture("bert-f32"));
  const std::vector<int> ids = model->encode(kBertText);
  attnlab::Scenario layer = models::layer_scenario(*model, model->transformer().run(ids), 0, kBertText);
  layer.view["model"]["pair"] = 7;
  const std::string path = File("bad-pair.json");
  attnlab::save_scenario(layer, path);
  session_.RequestOpen(path);
  ASSERT_TRUE(Settle());
  EXPECT_EQ(doc_.path, path);  // the document opens; the model does not reconnect
  EXPECT_EQ(lab_.Model(), nullptr);
  EXPECT_EQ(lab_.Next().note, "view.model.pair: expected a string (an encoder's second text), got number");
}

// Every row of docs/HOSTILE_INPUT.md's "The Model view's fields" (tests/hostile/cases.json).
TEST_F(ModelLabTest, EveryHostileModelViewRowGivesItsOneLine) {
  std::ifstream in(std::string(ATTNLAB_SOURCE_DIR) + "/tests/hostile/cases.json");
  const nlohmann::json cases = nlohmann::json::parse(in)["model_view_cases"];
  ASSERT_GE(cases.size(), 2u);
  for (const nlohmann::json& c : cases) {
    lab_.RequestOpen(Fixture(c["model"].get<std::string>()));
    lab_.SetText(c["text"].get<std::string>());
    lab_.SetPair(c["pair"].get<std::string>());
    ASSERT_TRUE(Settle());
    const std::string& said = lab_.TextError().empty() ? lab_.Next().note : lab_.TextError();
    EXPECT_EQ(said, c["message"].get<std::string>()) << c["case"];
  }
}

}  // namespace
}  // namespace test_model_lab
}  // namespace attnlab::app::testing
