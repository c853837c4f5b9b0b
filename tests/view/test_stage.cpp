// view/stage.h: stage names are stable (layout dumps, tests) and, for every stage the exporter
// draws, they are the exporter's and the CLI's names (the window's export looks them up so).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "attnlab/export/views.h"
#include "view/stage.h"

namespace test_stage {

namespace {

using attnlab::app::Stage;

TEST(Stage, EveryExporterStageHasAViewStageOfTheSameName) {
  const Stage all[] = {Stage::None,       Stage::XPos,   Stage::Q,      Stage::K,      Stage::V,
                       Stage::QRot,       Stage::KRot,   Stage::Scores, Stage::Scaled, Stage::Bias,
                       Stage::Masked,     Stage::Weights, Stage::HeadOutput, Stage::Concat, Stage::Wo,
                       Stage::Output};
  std::set<std::string> names;
  for (Stage s : all) EXPECT_TRUE(names.insert(attnlab::app::StageName(s)).second) << "unique";
  for (attnlab::exporter::Stage e : attnlab::exporter::all_stages())
    EXPECT_EQ(names.count(attnlab::exporter::stage_name(e)), 1u) << attnlab::exporter::stage_name(e);
  EXPECT_FALSE(attnlab::exporter::stage_from_name(attnlab::app::StageName(Stage::None)));
  EXPECT_FALSE(attnlab::exporter::stage_from_name(attnlab::app::StageName(Stage::Wo)));
  EXPECT_EQ(attnlab::exporter::stage_from_name(attnlab::app::StageName(Stage::HeadOutput)),
            attnlab::exporter::Stage::head_output);
}

}  // namespace

}  // namespace test_stage
