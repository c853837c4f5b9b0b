#include "attnlab/numbering.h"

namespace attnlab {

std::string index_text(int index) { return std::to_string(index); }  // 0-based: see numbering.h

std::string head_label(int head) { return "head " + index_text(head); }

std::string short_head_label(int head) { return "h" + index_text(head); }

std::string kv_head_label(int kv_head) { return "K/V head " + index_text(kv_head); }

std::string layer_label(int layer) { return "layer " + index_text(layer); }

std::string model_head_label(int layer, int head) {
  return "head " + index_text(layer) + "." + index_text(head);
}

}  // namespace attnlab
