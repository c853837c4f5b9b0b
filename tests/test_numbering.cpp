// One way to count layers and heads (attnlab/numbering.h): from 0, a model's head as layer.head.
#include <gtest/gtest.h>

#include "attnlab/cell_ref.h"
#include "attnlab/numbering.h"

namespace test_numbering {

namespace {

TEST(Numbering, LayersAndHeadsCountFromZeroAsTheFilesIndexThem) {
  EXPECT_EQ(attnlab::index_text(0), "0");
  EXPECT_EQ(attnlab::head_label(0), "head 0");
  EXPECT_EQ(attnlab::short_head_label(11), "h11");
  EXPECT_EQ(attnlab::kv_head_label(1), "K/V head 1");
  EXPECT_EQ(attnlab::layer_label(4), "layer 4");
  // The words of heads[2] name the head the file's index names.
  EXPECT_EQ(attnlab::head_words(attnlab::parse_cell_ref("heads[2].W_q[0][0]")),
            attnlab::head_label(2));
}

TEST(Numbering, AModelsHeadIsWrittenLayerDotHeadAsHeadsOffTakesIt) {
  // `attnlab-cli model DIR --heads-off 9.6` switches off layer 9's head 6: the same two numbers.
  EXPECT_EQ(attnlab::model_head_label(9, 6), "head 9.6");
  EXPECT_EQ(attnlab::model_head_label(0, 0), "head 0.0");
}

}  // namespace

}  // namespace test_numbering
