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

// Directories a command made for its output (MakeWritableDir), removed again, if still empty,
// unless Keep() is called once the command succeeded: a failed or stopped command leaves the
// tree as it was.
class MadeDirectories {
 public:
  MadeDirectories() = default;
  MadeDirectories(const MadeDirectories&) = delete;
  MadeDirectories& operator=(const MadeDirectories&) = delete;
  ~MadeDirectories();
  void Keep() { made_.clear(); }

 private:
  friend absl::Status MakeWritableDir(const std::string& dir, absl::string_view flag,
                                      MadeDirectories* made);
  std::vector<std::string> made_;  // outermost first
};

// Destinations are checked by making them, not by predicting from permission bits (which, as
// root, pass /proc, /sys and read-only mounts, where making then fails after the work).
// MakeWritableDir makes `dir` and its missing parents (recorded in *made) and a file in it,
// removed at once; CheckWritableFile makes a file beside `path` (where it is written by
// rename), removed at once, or, where `path` is a pipe, a terminal or a device, checks that it
// can be written.
absl::Status MakeWritableDir(const std::string& dir, absl::string_view flag, MadeDirectories* made);
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

// For a flag's value out of its range or set, found once the flags are parsed: prints
// "bpeforge: error: MESSAGE (see --help)", as CLI11's own usage errors read, and returns 2.
int UsageFail(const absl::Status& status);

// Peak resident set size of this process so far, in bytes.
uint64_t PeakRssBytes();

// "1 thread", "2 threads": for the summaries.
std::string ThreadsNote(int threads);

}  // namespace bpeforge::cli

#endif  // BPEFORGE_CLI_COMMAND_SUPPORT_H_
