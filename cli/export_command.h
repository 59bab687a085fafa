// `bpeforge export`: write a tokenizer in every format bpeforge speaks.
#ifndef BPEFORGE_CLI_EXPORT_COMMAND_H_
#define BPEFORGE_CLI_EXPORT_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace bpeforge::cli {

void AddExportCommand(CLI::App& app, std::function<int()>* action);

}  // namespace bpeforge::cli

#endif  // BPEFORGE_CLI_EXPORT_COMMAND_H_
