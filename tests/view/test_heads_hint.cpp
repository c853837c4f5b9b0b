// view/heads_hint.h: the Heads panel's reading guide names the weights' shape and axes, and which
// heads share a K/V head (grouped-query and multi-query attention), in 1-based head numbers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "view/heads_hint.h"

namespace test_heads_hint {

namespace {

attnlab::Trace HeadsSharing(const std::vector<int>& kv_heads) {
  attnlab::Trace t;
  for (int kv : kv_heads) {
    attnlab::HeadTrace h;
    h.kv_head = kv;
    h.weights = attnlab::Matrix::Zero(3, 5);
    t.heads.push_back(h);
  }
  return t;
}

attnlab::app::AxisLabels Axes(const char* rows, const char* cols) {
  attnlab::app::AxisLabels labels;
  labels.row_axis = rows;
  labels.col_axis = cols;
  return labels;
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(HeadsHint, ShapeAndAxesInTheLayoutsOrder) {
  const std::string rows = attnlab::app::HeadsHint(HeadsSharing({0, 1}), Axes("queries", "keys"));
  EXPECT_TRUE(Contains(rows, "3\xC3\x97" "5 each, queries down, keys across.")) << rows;
  const std::string cols = attnlab::app::HeadsHint(HeadsSharing({0, 1}), Axes("keys", "queries"));
  EXPECT_TRUE(Contains(cols, "keys down, queries across.")) << cols;
  EXPECT_FALSE(Contains(rows, "K/V")) << "every head has its own K/V head: " << rows;
}

TEST(HeadsHint, GroupsOfHeadsSharingAKeyValueHead) {
  const std::string gqa = attnlab::app::HeadsHint(HeadsSharing({0, 0, 1, 1}), Axes("queries", "keys"));
  EXPECT_TRUE(Contains(gqa,
                       " Heads 0\xE2\x80\x93"
                       "1 share K/V head 0, heads 2\xE2\x80\x93"
                       "3 K/V head 1."))
      << gqa;
  const std::string mqa = attnlab::app::HeadsHint(HeadsSharing({0, 0, 0}), Axes("queries", "keys"));
  EXPECT_TRUE(Contains(mqa, " All 3 heads share one K/V head (multi-query).")) << mqa;
}

}  // namespace test_heads_hint
