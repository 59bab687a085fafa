#include "cli/command_support.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bpeforge/bpeforge.h"
#include "cli/ranks.h"

namespace bpeforge::cli {
namespace {

std::atomic<bool> stop_requested{false};
std::atomic<int> stop_signal{0};

void OnStopSignal(int signal) {
  stop_signal.store(signal);
  stop_requested.store(true);
}

absl::Status NotWritable(absl::string_view flag, const std::string& path, absl::string_view why) {
  return absl::PermissionDeniedError(absl::StrCat(flag, " ", path, ": ", why));
}

// Makes a file in `dir` and removes it: whether files can be written there, found by writing
// one (the outputs are written the same way, a temporary file beside each).
absl::Status MakeAndRemoveFileIn(const std::string& dir, absl::string_view flag,
                                 const std::string& path) {
  std::string probe = (std::filesystem::path(dir) / ".bpeforge-check-XXXXXX").string();
  const int fd = mkstemp(probe.data());
  if (fd < 0) {
    return NotWritable(flag, path,
                       absl::StrCat("cannot write in ", dir, ": ", std::strerror(errno)));
  }
  close(fd);
  unlink(probe.c_str());
  return absl::OkStatus();
}

}  // namespace

std::string Printable(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      absl::StrAppend(&out, "\\x", absl::Hex(u, absl::kZeroPad2));
    } else {
      out += c;
    }
  }
  return out;
}

absl::StatusOr<uint64_t> ParseDecimal(absl::string_view text, absl::string_view flag, uint64_t min,
                                      uint64_t max) {
  uint64_t value = 0;
  const bool digits = !text.empty() && text.size() <= 20 &&
                      std::all_of(text.begin(), text.end(), absl::ascii_isdigit);
  if (!digits || !absl::SimpleAtoi(text, &value) || value < min || value > max) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " must be a decimal integer from ", min,
                                                   " to ", max, ", not \"", text, "\""));
  }
  return value;
}

MadeDirectories::~MadeDirectories() {
  for (auto it = made_.rbegin(); it != made_.rend(); ++it) {
    std::error_code ignored;
    std::filesystem::remove(*it, ignored);  // an empty directory only
  }
}

absl::Status MakeWritableDir(const std::string& dir, absl::string_view flag,
                             MadeDirectories* made) {
  if (dir.empty()) return absl::InvalidArgumentError(absl::StrCat(flag, " is empty"));
  if (dir == "-") {
    return absl::InvalidArgumentError(
        absl::StrCat(flag,
                     " -: the output is a directory of files; standard output cannot hold "
                     "them"));
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target = fs::absolute(dir, ec);
  std::vector<fs::path> missing;  // innermost first
  for (fs::path p = target; !p.empty() && !fs::exists(fs::symlink_status(p, ec));
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (mkdir(it->c_str(), 0777) != 0 && errno != EEXIST) {
      return NotWritable(flag, dir,
                         absl::StrCat("cannot create ", it->string(), ": ", std::strerror(errno)));
    }
    made->made_.push_back(it->string());
  }
  if (!fs::is_directory(target, ec)) {
    return NotWritable(flag, dir, absl::StrCat(target.string(), " is not a directory"));
  }
  return MakeAndRemoveFileIn(target.string(), flag, dir);
}

absl::Status CheckWritableFile(const std::string& path, absl::string_view flag) {
  if (path.empty()) return absl::InvalidArgumentError(absl::StrCat(flag, " is empty"));
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return NotWritable(flag, path, "is a directory");
  // A pipe, a terminal or a device is written as it is; a file, by rename beside the file its
  // symbolic links end at.
  if (struct stat st; stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (access(path.c_str(), W_OK) != 0) {
      return NotWritable(flag, path, absl::StrCat("cannot write: ", std::strerror(errno)));
    }
    return absl::OkStatus();
  }
  std::filesystem::path file = std::filesystem::absolute(path, ec);
  if (std::filesystem::is_symlink(file, ec)) {
    const std::filesystem::path target = std::filesystem::weakly_canonical(file, ec);
    if (!ec) file = target;
  }
  const std::filesystem::path parent = file.parent_path();
  if (!std::filesystem::is_directory(parent, ec)) {
    return NotWritable(flag, path, absl::StrCat("no directory ", parent.string()));
  }
  return MakeAndRemoveFileIn(parent.string(), flag, path);
}

std::optional<std::pair<dev_t, ino_t>> RegularFileId(const std::string& path) {
  struct stat st;
  if (path.empty() || stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return std::make_pair(st.st_dev, st.st_ino);
}

absl::Status CheckNotAnInput(const std::string& output, absl::string_view flag,
                             const std::vector<std::string>& inputs) {
  const std::optional<std::pair<dev_t, ino_t>> out = RegularFileId(output);
  if (!out.has_value()) return absl::OkStatus();
  for (const std::string& input : inputs) {
    if (RegularFileId(input) == out) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, " ", output, " is the input ", input, "; refusing to overwrite it"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckNotATerminal(const std::string& path, absl::string_view flag) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) return absl::OkStatus();
  const int fd = open(path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return absl::OkStatus();  // the writer will say why
  const bool terminal = isatty(fd) != 0;
  close(fd);
  if (!terminal) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(flag, " ", path, " is a terminal, and the output is binary: ",
                   ranks::Size() > 1 ? "under mpirun a rank's standard output is one; name a file"
                                     : "redirect it to a file or a pipe"));
}

std::string OutputPath(const std::string& flag_value) {
  return flag_value == "-" ? "/dev/stdout" : flag_value;
}

std::FILE* SummaryStream(const std::string& output) {
  if (output == OutputPath("-")) return stderr;  // even where it is a terminal (under mpirun)
  struct stat out, std_out;
  // /dev/null as both is no reason to move the summary.
  const bool same = stat(output.c_str(), &out) == 0 && !S_ISCHR(out.st_mode) &&
                    fstat(STDOUT_FILENO, &std_out) == 0 && out.st_dev == std_out.st_dev &&
                    out.st_ino == std_out.st_ino;
  return same ? stderr : stdout;
}

const std::atomic<bool>* InstallStopSignals() {
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  action.sa_flags = SA_RESETHAND;  // a second signal takes the default action: the end
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  return &stop_requested;
}

int StopSignal() { return stop_signal.load(); }

int Fail(absl::string_view command, const absl::Status& status) {
  if (!ranks::Leader()) return 1;  // under mpirun the leader reports for every rank
  if (const int signal = StopSignal(); signal != 0 && absl::IsCancelled(status)) {
    std::fprintf(stderr, "bpeforge %.*s: stopped by %s; nothing was written\n",
                 static_cast<int>(command.size()), command.data(),
                 signal == SIGINT ? "SIGINT" : "SIGTERM");
    return 128 + signal;
  }
  const std::string message = Printable(status.message());
  std::fprintf(stderr, "bpeforge %.*s: error: %s\n", static_cast<int>(command.size()),
               command.data(), message.c_str());
  return 1;
}

int UsageFail(const absl::Status& status) {
  if (ranks::Leader()) {
    std::fprintf(stderr, "bpeforge: error: %s (see --help)\n", Printable(status.message()).c_str());
  }
  return 2;
}

uint64_t PeakRssBytes() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

std::string ThreadsNote(int threads) {
  return absl::StrFormat("%d thread%s", threads, threads == 1 ? "" : "s");
}

absl::Status ParsePatternFlag(const std::string& value, Pattern* pattern, std::string* custom) {
  absl::StatusOr<Pattern> parsed = ParsePatternOrRegex(value, custom);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--pattern: ", parsed.status().message()));
  }
  *pattern = *parsed;
  return absl::OkStatus();
}

}  // namespace bpeforge::cli
