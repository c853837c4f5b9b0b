#include "attnlab/models/token_text.h"

#include <vector>

#include "attnlab/message_text.h"
#include "attnlab/scenario.h"

namespace attnlab::models {

int one_token(const HfModel& model, const std::string& field, const std::string& text) {
  if (text.empty()) refuse(field, "empty: give the text of one token");
  const Tokenizer* tokenizer = model.tokenizer();
  std::vector<int> ids = tokenizer ? model.encode(text) : model.ids_from_text(text);  // ids typed as text
  if (tokenizer && tokenizer->bos() && !ids.empty() && ids.front() == *tokenizer->bos()) ids.erase(ids.begin());
  if (ids.size() != 1) {
    std::string parts;
    for (int id : ids) parts += (parts.empty() ? "" : ", ") + quoted_excerpt(decoded(model, id));
    refuse(field, quoted_excerpt(text) + " is " + std::to_string(ids.size()) + " tokens (" + parts +
                      "): give the text of one token");
  }
  if (ids.front() < 0 || ids.front() >= model.config().vocab)
    refuse(field, std::to_string(ids.front()) + " is outside the vocabulary (0 to " +
                      std::to_string(model.config().vocab - 1) + ")");
  return ids.front();
}

std::string decoded(const HfModel& model, int id) {
  return model.tokenizer() && model.tokenizer()->contains(id) ? model.tokenizer()->decode(id) : model.label(id);
}

}  // namespace attnlab::models
