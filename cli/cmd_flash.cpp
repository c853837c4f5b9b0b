// attnlab-cli flash FILE --block BRxBC: FlashAttention-2's forward loop for one head, tile by tile
// (the online softmax's m, l, alpha and unnormalised O after every tile), as JSON or text.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "args.h"
#include "attnlab/attention.h"
#include "attnlab/flash.h"
#include "attnlab/scenario_io.h"
#include "commands.h"

namespace attnlab::cli {
namespace {

struct FlashOptions {
  std::string file, block, head = "0", format = "json";
  const CLI::Option* block_given = nullptr;
};

constexpr int kMaxBlock = 1 << 20;

/// "2x4" -> {2, 4}; anything else (0, negative, not a number, no x) is one usage line naming --block.
std::pair<int, int> parse_block(const std::string& text) {
  const std::size_t x = text.find_first_of("xX");
  const auto part = [&](const std::string& s) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 7 || std::stoi(s) < 1 ||
        std::stoi(s) > kMaxBlock)
      throw UsageError("--block expects BRxBC, two whole numbers from 1 to " + std::to_string(kMaxBlock) +
                       " (e.g. 2x2), got " + quote_arg(text));
    return std::stoi(s);
  };
  if (x == std::string::npos) part("");
  return {part(text.substr(0, x)), part(text.substr(x + 1))};
}

int run_flash(const FlashOptions& p) {
  if (p.block_given->count() == 0) throw UsageError("flash needs --block BRxBC, e.g. --block 2x2");
  if (p.format != "json" && p.format != "text") throw UsageError("--format expects json or text, got " + quote_arg(p.format));
  const auto [block_rows, block_cols] = parse_block(p.block);
  const int head = whole_number("--head", p.head, 0, 255);
  Trace trace;
  try {
    trace = compute(load_scenario(p.file));
  } catch (const ScenarioError& e) {
    return report_invalid(p.file, e);
  }
  check_head_exists(head, trace.heads.size());
  FlashRun run;
  try {
    run = flash_attention(trace, head, block_rows, block_cols);
  } catch (const std::invalid_argument& e) {  // too many tiles for this sequence
    throw UsageError("--block " + p.block + ": " + e.what());
  }
  if (p.format == "text") std::cout << flash_to_text(run, 6);
  else std::cout << flash_to_json(run).dump() << "\n";
  return 0;
}

}  // namespace

Run add_flash(CLI::App& program) {
  auto o = std::make_shared<FlashOptions>();
  CLI::App* c = program.add_subcommand(
      "flash", "FlashAttention's online softmax for one head, tile by tile (m, l, alpha, O after each tile)");
  add_file(*c, o->file);
  o->block_given = c->add_option("--block", o->block,
                                 "the tile: BR queries by BC keys, e.g. 2x2 (larger than the\n"
                                 "sequence: one block)")
                       ->type_name("BRxBC")
                       ->group(kRequired);
  c->add_option("--head", o->head, "the query head, from 0")->type_name("N");
  c->add_option("--format", o->format, "json: one object on stdout (-inf as null); text: each tile's\nstate as aligned matrices")
      ->type_name("json|text");
  return [o] { return run_flash(*o); };
}

}  // namespace attnlab::cli
