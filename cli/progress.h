// Progress lines on stderr: rewritten in place on a terminal, plain lines (at most one every
// few seconds) in a log; and the stopwatch behind each summary's time.
#ifndef BPEFORGE_CLI_PROGRESS_H_
#define BPEFORGE_CLI_PROGRESS_H_

#include <chrono>
#include <mutex>

#include "absl/strings/string_view.h"

namespace bpeforge::cli {

class Progress {
 public:
  explicit Progress(bool enabled);
  ~Progress() { Finish(); }
  void Update(absl::string_view line);
  void Finish();  // ends a rewritten line before the summary is printed

 private:
  bool enabled_;
  bool tty_;
  bool dirty_ = false;
  std::mutex mu_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};  // of the last line; none yet when zero
};

// Wall seconds since it was made: the time a command's summary reports.
class Stopwatch {
 public:
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace bpeforge::cli

#endif  // BPEFORGE_CLI_PROGRESS_H_
