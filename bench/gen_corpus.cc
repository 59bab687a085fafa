// bpeforge-gen: writes a synthetic benchmark corpus (see bench/corpus_generator.h).
//
//   bpeforge-gen --flavor stories|web|cjk --size 100M [--seed N] [--threads N] [--format jsonl]
//                --out FILE|-
//
// The output is exactly --size bytes of text. With --format jsonl the same text is written as
// JSON Lines instead: the documents between "<|endoftext|>" tokens, one {"text": ...} record
// each, so that training on it with that special token gives the merges of the text. A file is
// written under a temporary name in the target directory and renamed at the end, so an interrupted
// run never leaves a short corpus behind that a later run could mistake for a finished one.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bench/corpus_generator.h"
#include "core/internal/atomic_file.h"
#include "core/internal/status_macros.h"

namespace {

absl::Status WriteAllToStdout(absl::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(STDOUT_FILENO, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::UnavailableError(absl::StrCat("writing to stdout: ", std::strerror(errno)));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

// Turns the text into JSON Lines as it streams by: a record per document, written once the
// special token after it (or the end) has been seen.
class JsonlWriter {
 public:
  explicit JsonlWriter(std::function<absl::Status(absl::string_view)> sink)
      : sink_(std::move(sink)) {}
  absl::Status Write(absl::string_view text) {
    pending_.append(text.data(), text.size());
    size_t start = 0;
    for (size_t at;
         (at = pending_.find(kSeparator.data(), start, kSeparator.size())) != std::string::npos;) {
      BPEFORGE_RETURN_IF_ERROR(Record(absl::string_view(pending_).substr(start, at - start)));
      start = at + kSeparator.size();
    }
    pending_.erase(0, start);
    return absl::OkStatus();
  }
  absl::Status Finish() { return Record(pending_); }

 private:
  static constexpr absl::string_view kSeparator = "<|endoftext|>";
  absl::Status Record(absl::string_view document) {
    nlohmann::ordered_json record;
    record["text"] = std::string(document);
    return sink_(record.dump() + "\n");
  }
  std::function<absl::Status(absl::string_view)> sink_;
  std::string pending_;
};

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "bpeforge-gen: error: %s\n", std::string(status.message()).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bpeforge-gen: write a deterministic synthetic corpus for benchmarks"};
  std::string flavor_name;
  std::string size_text;
  std::string out_path;
  uint64_t seed = 1;
  int threads = static_cast<int>(std::min(8u, std::max(1u, std::thread::hardware_concurrency())));
  bool quiet = false;
  std::string format = "text";
  app.add_option("--flavor", flavor_name,
                 "stories (TinyStories-like), web (OpenWebText-like) or cjk (the stories as a "
                 "CJK language: ideographs, no spaces, paragraphs ending in \"。\\n\\n\")")
      ->required()
      ->check(CLI::IsMember({"stories", "web", "cjk"}));
  app.add_option("--size", size_text,
                 "Exact output size: bytes, or with suffix K/M/G/T (powers of 1000) or "
                 "Ki/Mi/Gi/Ti (powers of 1024)")
      ->required();
  app.add_option("--seed", seed, "Random seed; the same seed gives the same bytes")
      ->capture_default_str();
  app.add_option("--threads", threads, "Generator threads (the output does not depend on it)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--out", out_path, "Output file, or - for stdout")->required();
  app.add_option("--format", format,
                 "text, or jsonl: the documents as JSON Lines records {\"text\": ...}")
      ->check(CLI::IsMember({"text", "jsonl"}))
      ->capture_default_str();
  app.add_flag("--quiet", quiet, "No summary line on stderr");
  CLI11_PARSE(app, argc, argv);

  bpeforge::internal::bench::CorpusOptions options;
  absl::StatusOr<bpeforge::internal::bench::Flavor> flavor =
      bpeforge::internal::bench::ParseFlavor(flavor_name);
  if (!flavor.ok()) return Fail(flavor.status());
  absl::StatusOr<uint64_t> size = bpeforge::internal::bench::ParseSize(size_text);
  if (!size.ok()) return Fail(size.status());
  options.flavor = *flavor;
  options.size = *size;
  options.seed = seed;
  options.threads = threads;

  const auto start = std::chrono::steady_clock::now();
  bpeforge::internal::AtomicFile file;
  std::function<absl::Status(absl::string_view)> sink = WriteAllToStdout;
  if (out_path != "-") {
    if (absl::Status s = bpeforge::internal::AtomicFile::Open(out_path, &file); !s.ok())
      return Fail(s);
    sink = [&](absl::string_view piece) { return file.Write(piece); };
  }
  JsonlWriter jsonl(sink);
  absl::Status s = bpeforge::internal::bench::GenerateCorpus(options, [&](absl::string_view piece) {
    return format == "jsonl" ? jsonl.Write(piece) : sink(piece);
  });
  if (s.ok() && format == "jsonl") s = jsonl.Finish();
  if (s.ok() && out_path != "-") s = file.Commit();
  if (!s.ok()) return Fail(s);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!quiet) {
    std::fprintf(stderr,
                 "bpeforge-gen: %s seed %llu: %llu bytes in %.2f s (%.0f MB/s, %d threads)\n",
                 std::string(bpeforge::internal::bench::FlavorName(options.flavor)).c_str(),
                 static_cast<unsigned long long>(seed), static_cast<unsigned long long>(*size),
                 seconds, seconds > 0 ? static_cast<double>(*size) / 1e6 / seconds : 0.0, threads);
  }
  return 0;
}
