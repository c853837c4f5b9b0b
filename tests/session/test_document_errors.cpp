// A refused edit's message: beside the control that made it and in the status bar, until the
// next successful edit (of any control), an undo or a redo; never left behind, stale.
#include <gtest/gtest.h>

#include <string>

#include "attnlab/edits.h"
#include "session/document.h"
#include "session/presets.h"

namespace attnlab::app::testing {
namespace test_document_errors {
namespace {

class DocumentErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    LoadedScenario loaded = BuiltInExample({});
    doc_.Open(std::move(loaded));
  }
  // A paste of the wrong shape, as the Inputs panel refuses it.
  void RefuseX() {
    ASSERT_FALSE(doc_.ApplyEdit("X", [](attnlab::Scenario&) {
      throw attnlab::ScenarioError("X: pasted 2x3, expected 3x4");
    }));
    ASSERT_NE(doc_.EditErrorFor("X"), nullptr);
  }
  bool EditScale(double value) {
    return doc_.ApplyEdit("scale", [value](attnlab::Scenario& s) {
      s.scale.kind = attnlab::Scale::Kind::value;
      s.scale.value = value;
    });
  }
  Document doc_;
};

TEST_F(DocumentErrors, ARefusalStaysUntilTheNextSuccessfulEditOfThatControl) {
  RefuseX();
  ASSERT_TRUE(doc_.ApplyEdit("X", [](attnlab::Scenario& s) { s.X(0, 0) = 0.5; }));
  EXPECT_EQ(doc_.EditErrorFor("X"), nullptr);
  EXPECT_TRUE(doc_.LastEditError().message.empty()) << "the status bar's refusal is gone too";
}

TEST_F(DocumentErrors, ARefusalGoesWithASuccessfulEditOfAnotherControl) {
  RefuseX();
  ASSERT_TRUE(EditScale(0.5));
  EXPECT_EQ(doc_.EditErrorFor("X"), nullptr) << "stale: the paste it refused is history";
  EXPECT_TRUE(doc_.LastEditError().message.empty());
}

TEST_F(DocumentErrors, ARefusedEditLeavesTheNewestRefusalOnly) {
  RefuseX();
  EXPECT_FALSE(
      doc_.ApplyEdit("heads", [](attnlab::Scenario& s) { attnlab::set_head_count(s, 0); }));
  EXPECT_EQ(doc_.EditErrorFor("X"), nullptr);
  ASSERT_NE(doc_.EditErrorFor("heads"), nullptr);
  EXPECT_NE(doc_.EditErrorFor("heads")->find("num_heads"), std::string::npos);
}

TEST_F(DocumentErrors, UndoAndRedoClearARefusal) {
  ASSERT_TRUE(EditScale(0.5));
  RefuseX();
  doc_.Undo();
  EXPECT_TRUE(doc_.LastEditError().message.empty());
  RefuseX();
  doc_.Redo();
  EXPECT_TRUE(doc_.LastEditError().message.empty());
}

}  // namespace
}  // namespace test_document_errors
}  // namespace attnlab::app::testing
