#include "attnlab/models/hf_model.h"


#include <algorithm>

#include "attnlab/limits.h"
#include "attnlab/message_text.h"
#include "json_read.h"

namespace attnlab::models {
namespace {

/// config.json's text; a missing file, a folder or a named pipe in its place is refused by name.
std::string read_config(const std::filesystem::path& dir) { return detail::read_file(dir / "config.json"); }

}  // namespace

std::shared_ptr<const HfModel> HfModel::open(const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error))
    refuse("model folder", quoted_excerpt(dir.string()) + " is not a folder");
  auto model = std::make_shared<HfModel>();
  model->dir_ = dir;
  model->config_ = parse_config(read_config(dir));
  model->weights_ = std::make_unique<WeightSet>(WeightSet::open(dir));
  model->transformer_ = Transformer::bind(model->config_, *model->weights_);
  model->dtype_ = model->weights_->dtype_summary();
  model->weights_id_ = model->weights_->fingerprint();
  try {
    model->tokenizer_ = Tokenizer::load(dir);
  } catch (const ScenarioError& e) {
    model->tokenizer_error_ = e.what();
  }
  return model;
}

std::string HfModel::name() const {
  const std::filesystem::path name = dir_.filename().empty() ? dir_.parent_path().filename() : dir_.filename();
  return name.empty() ? "model" : name.string();
}

namespace {

/// The tokenizer's limits: the model's positions, or attnlab's own limit when `to_limit` (a window
/// that says "45 tokens, more than the model's 32 positions" and runs the first 32).
EncodeLimits limits_for(const ModelConfig& config, bool to_limit, const std::atomic<bool>* cancelled) {
  EncodeLimits limits;
  const bool positions = !to_limit && config.max_positions <= limits::max_tokens;
  limits.max_tokens = std::size_t(positions ? config.max_positions : limits::max_tokens);
  limits.max_tokens_reason = positions ? "the model's positions" : "attnlab's limit";
  limits.cancelled = cancelled;
  return limits;
}

}  // namespace

std::vector<int> HfModel::encode(const std::string& text, const std::atomic<bool>* cancelled) const {
  return encode_single(text, cancelled).ids;
}

std::vector<int> HfModel::encode_to_limit(const std::string& text, const std::atomic<bool>* cancelled) const {
  return encode_single(text, cancelled, true).ids;
}

Tokenizer::Encoding HfModel::encode_single(const std::string& text, const std::atomic<bool>* cancelled,
                                           bool to_limit) const {
  if (text.empty()) refuse("text", "empty: type a sentence");
  if (!tokenizer_) refuse("text", "no tokenizer to split it (" + tokenizer_error_ + "); give token ids instead");
  return tokenizer_->encode_single(text, limits_for(config_, to_limit, cancelled));
}

Tokenizer::Encoding HfModel::encode_pair(const std::string& text, const std::string& pair,
                                         const std::atomic<bool>* cancelled) const {
  if (text.empty()) refuse("text", "empty: type a sentence");
  if (pair.empty()) refuse("second text", "empty: type the second sentence of the pair");
  if (!tokenizer_) refuse("text", "no tokenizer to split it (" + tokenizer_error_ + ")");
  return tokenizer_->encode_pair(text, pair, limits_for(config_, false, cancelled));
}

std::optional<int> HfModel::mask_id() const {
  if (!tokenizer_) return std::nullopt;
  for (const char* token : {"[MASK]", "<mask>"})
    if (const std::optional<int> id = tokenizer_->id_of(token)) return id;
  return std::nullopt;
}

std::vector<int> HfModel::ids_from_text(const std::string& text) const {
  std::vector<int> ids;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == ',' || text[i] == ' ') {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && text[end] != ',' && text[end] != ' ') ++end;
    const std::string word = text.substr(i, end - i);
    const bool digits = word.size() <= 9 && word.find_first_not_of("0123456789") == std::string::npos;
    if (!digits)
      refuse("ids", "expected token ids separated by commas or spaces (" + printable_text(name()) +
                        " has no tokenizer to split words), got " + quoted_excerpt(word));
    ids.push_back(std::stoi(word));
    i = end;
  }
  if (ids.empty()) refuse("ids", "empty: type token ids such as 464, 3797, 3332");
  return ids;
}

std::string HfModel::label(int id) const {
  if (tokenizer_ && tokenizer_->contains(id)) return tokenizer_->label(id);
  return "#" + std::to_string(id);
}

std::vector<std::string> HfModel::labels(const std::vector<int>& ids) const {
  std::vector<std::string> result;
  for (int id : ids) result.push_back(label(id));
  return result;
}

}  // namespace attnlab::models
