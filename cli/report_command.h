#ifndef BPEFORGE_CLI_REPORT_COMMAND_H_
#define BPEFORGE_CLI_REPORT_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace bpeforge::cli {

// Registers `bpeforge report`; sets *action when it was chosen.
void AddReportCommand(CLI::App& app, std::function<int()>* action);

}  // namespace bpeforge::cli

#endif  // BPEFORGE_CLI_REPORT_COMMAND_H_
