#ifndef BPEFORGE_CLI_DECODE_COMMAND_H_
#define BPEFORGE_CLI_DECODE_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace bpeforge::cli {

// Registers `bpeforge decode`; sets *action when it was chosen.
void AddDecodeCommand(CLI::App& app, std::function<int()>* action);

}  // namespace bpeforge::cli

#endif  // BPEFORGE_CLI_DECODE_COMMAND_H_
