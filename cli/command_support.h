// What every subcommand needs besides the library: strict numbers, checking destinations
// before the work starts, stopping cleanly on SIGINT/SIGTERM, and one-line errors.
#ifndef BPEFORGE_CLI_COMMAND_SUPPORT_H_
#define BPEFORGE_CLI_COMMAND_SUPPORT_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bpeforge/types.h"

namespace bpeforge::cli {

// `text` as a decimal integer in [min, max] (no sign, no hex, no spaces), or an error that
// names the flag and the range.
absl::StatusOr<uint64_t> ParseDecimal(absl::string_view text, absl::string_view flag, uint64_t min,
                                      uint64_t max);

// --pattern VALUE, as ParsePatternOrRegex reads it; errors name the flag.
absl::Status ParsePatternFlag(const std::string& value, Pattern* pattern, std::string* custom);

// An error unless `dir` is, or can be created as, a writable directory.
absl::Status CheckWritableDir(const std::string& dir, absl::string_view flag);
// An error unless a file can be written (by rename) at `path`, or `path` is a pipe, a terminal
// or a device that can be written.
absl::Status CheckWritableFile(const std::string& path, absl::string_view flag);
// `text` with its control characters escaped (\n, \t, \x1b, ...), for a file's name in what
// a command prints: a name may hold a line break or a terminal's escape sequence, which would
// split the one line of an error or a summary, or rewrite the user's terminal.
std::string Printable(absl::string_view text);
// The device and inode of the regular file `path` names, if it names one: two names with the
// same are one file, whatever the links between them.
std::optional<std::pair<dev_t, ino_t>> RegularFileId(const std::string& path);
// An error if `output` is one of `inputs` (the same file, whatever the names and links), so that
// no command writes over what it reads.
absl::Status CheckNotAnInput(const std::string& output, absl::string_view flag,
                             const std::vector<std::string>& inputs);
// An error if `path` is a terminal: binary output there (ids, counts) is garbage that can
// upset the terminal, so it is refused, as zstd refuses to write to a console.
absl::Status CheckNotATerminal(const std::string& path, absl::string_view flag);
// A file output as given on the command line: "-" is standard output.
std::string OutputPath(const std::string& flag_value);
// Where a command's summary goes: standard error when `output` is standard output (so that the
// summary does not land in the ids, say), else standard output.
std::FILE* SummaryStream(const std::string& output);

// After InstallStopSignals, the first SIGINT or SIGTERM sets the returned flag (which the
// library's long calls poll as their `cancel`); a second one ends the process at once.
const std::atomic<bool>* InstallStopSignals();
int StopSignal();  // the signal that set the flag, or 0

// Prints "bpeforge COMMAND: error: MESSAGE" (or, after a stop signal, that the command was
// stopped and wrote nothing) and returns the exit status: 1, or 128 + the signal.
int Fail(absl::string_view command, const absl::Status& status);

// Peak resident set size of this process so far, in bytes.
uint64_t PeakRssBytes();

// "1 thread", "2 threads": for the summaries.
std::string ThreadsNote(int threads);

}  // namespace bpeforge::cli

#endif  // BPEFORGE_CLI_COMMAND_SUPPORT_H_
