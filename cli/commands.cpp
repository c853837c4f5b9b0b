#include "commands.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <sstream>

#include "attnlab/message_text.h"

namespace attnlab::cli {
namespace {

/// "compute FILE [--format json|text] [--precision N]", wrapped at 100 columns: from the options
/// the subcommand declares, so the list cannot drift from what it accepts.
std::string synopsis(const CLI::App& command) {
  std::vector<std::string> words = {command.get_name()};
  for (const CLI::Option* opt : command.get_options()) {
    if (opt == command.get_help_ptr() || opt == command.get_help_all_ptr()) continue;
    if (opt->get_positional()) {
      words.push_back(opt->get_type_name().empty() ? opt->get_name() : opt->get_type_name());
      continue;
    }
    std::string word = opt->get_name();
    if (!opt->get_type_name().empty()) word += " " + opt->get_type_name();  // a flag has none
    words.push_back(opt->get_group() == kRequired ? word : "[" + word + "]");
  }
  std::string text = "  ", line;
  for (const std::string& word : words) {
    if (!line.empty() && line.size() + 1 + word.size() > 96) {
      text += line + "\n    ";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return text + line + "\n";
}

std::string indented(std::string text) {
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1))
    text.insert(at + 1, "      ");
  return text;
}

/// The program's help is the list of commands; a command's help is CLI11's, from its options.
class Formatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (app->get_parent() != nullptr) return CLI::Formatter::make_help(app, std::move(name), mode);
    std::string text = usage_text(*app);
    if (mode == CLI::AppFormatMode::All)  // --help-all: every command's options (the man page)
      for (const CLI::App* command : app->get_subcommands({})) {
        text += "\nattnlab-cli " + command->get_name() + ":\n" + command->get_description() + "\n";
        for (const CLI::Option* opt : command->get_options())
          if (opt != command->get_help_ptr()) text += make_option(opt, opt->get_positional());
      }
    return text;
  }
};

}  // namespace

CLI::Option* add_file(CLI::App& command, std::string& file) {
  return command.add_option("FILE", file, "the scenario, a JSON file (docs/FORMAT.md; examples in assets/presets)")
      ->required()
      ->type_name("");
}

std::vector<Command> add_commands(CLI::App& program) {
  program.formatter(std::make_shared<Formatter>());
  program.set_version_flag("--version", "attnlab-cli " ATTNLAB_VERSION);
  program.allow_extras();  // an unknown command or option is reported by main, in one line
  program.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)->always_capture_default();
  std::vector<Command> commands;
  for (auto add : {add_compute, add_validate, add_bench, add_export, add_compare, add_sensitivity, add_model, add_heads, add_lens, add_patch, add_tokenize, add_flash, add_decode}) {
    Run run = add(program);
    CLI::App* command = program.get_subcommands(std::function<bool(CLI::App*)>()).back();
    command->allow_extras();
    command->footer("exit status: 0 success, 1 invalid input (one line on stderr names the field), 2 bad usage");
    commands.push_back({command, std::move(run)});
  }
  program.set_help_all_flag("--help-all", "every command's options");  // after the commands: not theirs
  return commands;
}

int report_invalid(const std::string& file, const std::exception& error) {
  // A file's name may hold a newline: escaped, as the message itself is, so this stays one line.
  std::cerr << printable_text(file) << ": " << printable_text(error.what()) << "\n";
  return 1;
}

std::string usage_text(const CLI::App& program) {
  std::ostringstream out;
  out << "Usage: attnlab-cli COMMAND [OPTIONS]\n"
      << "  or:  attnlab-cli COMMAND --help   (the options of one command; --help-all: of every command)\n"
      << "  or:  attnlab-cli --version\n\n"
      << program.get_description() << "\n\nCommands:\n";
  for (const CLI::App* command : program.get_subcommands({}))
    out << "\n" << synopsis(*command) << "      " << indented(command->get_description()) << "\n";
  out << "\nexit status: 0 success, 1 invalid input (one line on stderr names the field), 2 bad usage\n";
  return out.str();
}

}  // namespace attnlab::cli
