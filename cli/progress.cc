#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace bpeforge::cli {

Progress::Progress(bool enabled) : enabled_(enabled), tty_(isatty(STDERR_FILENO) == 1) {}

void Progress::Update(absl::string_view line) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  // No line for work that ends within half a second; then one per interval.
  if (last_ == std::chrono::steady_clock::time_point{}
          ? now - start_ < std::chrono::milliseconds(500)
          : now - last_ < (tty_ ? std::chrono::milliseconds(200) : std::chrono::seconds(5))) {
    return;
  }
  last_ = now;
  std::string text(line);
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s", text.c_str());
    dirty_ = true;
  } else {
    std::fprintf(stderr, "%s\n", text.c_str());
  }
  std::fflush(stderr);
}

void Progress::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (dirty_) std::fprintf(stderr, "\r\033[K");
  dirty_ = false;
}

}  // namespace bpeforge::cli
