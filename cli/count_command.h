#ifndef BPEFORGE_CLI_COUNT_COMMAND_H_
#define BPEFORGE_CLI_COUNT_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace bpeforge::cli {

// Registers `bpeforge count`; sets *action when it was chosen.
void AddCountCommand(CLI::App& app, std::function<int()>* action);

}  // namespace bpeforge::cli

#endif  // BPEFORGE_CLI_COUNT_COMMAND_H_
