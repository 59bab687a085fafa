#ifndef BPEFORGE_CLI_TRAIN_COMMAND_H_
#define BPEFORGE_CLI_TRAIN_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace bpeforge::cli {

// Registers `bpeforge train`; the returned flag is set when it was chosen, and the action
// returns the exit status.
void AddTrainCommand(CLI::App& app, std::function<int()>* action);

}  // namespace bpeforge::cli

#endif  // BPEFORGE_CLI_TRAIN_COMMAND_H_
