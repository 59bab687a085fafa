#include "bench/corpus_generator.h"

#include <algorithm>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bench/corpus/cjk.h"
#include "bench/corpus/sampling.h"
#include "bench/corpus/stories.h"
#include "bench/corpus/text_buffer.h"
#include "bench/corpus/web.h"

namespace bpeforge::internal::bench {

absl::StatusOr<Flavor> ParseFlavor(absl::string_view name) {
  if (name == "stories") return Flavor::kStories;
  if (name == "web") return Flavor::kWeb;
  if (name == "cjk") return Flavor::kCjk;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown flavor '", name, "' (expected stories, web or cjk)"));
}

absl::string_view FlavorName(Flavor flavor) {
  switch (flavor) {
    case Flavor::kStories:
      return "stories";
    case Flavor::kWeb:
      return "web";
    case Flavor::kCjk:
      break;
  }
  return "cjk";
}

absl::StatusOr<uint64_t> ParseSize(absl::string_view text) {
  absl::string_view digits = text;
  size_t n = 0;
  while (n < digits.size() && absl::ascii_isdigit(static_cast<unsigned char>(digits[n]))) ++n;
  absl::string_view suffix = digits.substr(n);
  digits = digits.substr(0, n);
  uint64_t value = 0;
  if (digits.empty() || !absl::SimpleAtoi(digits, &value)) {
    return absl::InvalidArgumentError(absl::StrCat("bad size '", text, "'"));
  }
  if (!suffix.empty() && (suffix.back() == 'B' || suffix.back() == 'b')) {
    suffix.remove_suffix(1);
  }
  uint64_t base = 1000;
  if (suffix.size() == 2 && (suffix[1] == 'i' || suffix[1] == 'I')) {
    base = 1024;
    suffix.remove_suffix(1);
  }
  int power = 0;
  if (suffix.size() == 1) {
    switch (absl::ascii_toupper(static_cast<unsigned char>(suffix[0]))) {
      case 'K':
        power = 1;
        break;
      case 'M':
        power = 2;
        break;
      case 'G':
        power = 3;
        break;
      case 'T':
        power = 4;
        break;
      default:
        return absl::InvalidArgumentError(absl::StrCat("bad size suffix in '", text, "'"));
    }
  } else if (!suffix.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("bad size suffix in '", text, "'"));
  }
  for (int i = 0; i < power; ++i) {
    if (value > std::numeric_limits<uint64_t>::max() / base) {
      return absl::InvalidArgumentError(absl::StrCat("size '", text, "' is too large"));
    }
    value *= base;
  }
  return value;
}

std::string GenerateBlock(Flavor flavor, uint64_t seed, uint64_t index) {
  Rng rng(Mix64(seed ^ 0x5EEDULL) ^ Mix64(index * 0x9E3779B97F4A7C15ULL + 1));
  // Room for the block plus the longest document, so the buffer never grows.
  Out out(kBlockBytes + (64 << 10));
  while (out.size() < kBlockBytes) {
    if (flavor == Flavor::kStories) {
      WriteStory(rng, out);
    } else if (flavor == Flavor::kWeb) {
      WriteWebDocument(rng, out);
    } else {
      Out story(64 << 10);
      WriteStory(rng, story);
      WriteAsCjk(story.Take(), out);
    }
  }
  return out.Take();
}

namespace {

// Emits `block` to `sink`, or its first `remaining` bytes cut at a character boundary and
// padded with '\n'; counts the bytes off *remaining.
absl::Status EmitBlock(const std::string& block, uint64_t* remaining,
                       absl::FunctionRef<absl::Status(absl::string_view)> sink) {
  if (block.size() <= *remaining) {
    *remaining -= block.size();
    return sink(block);
  }
  size_t cut = *remaining;
  while (cut > 0 && (static_cast<unsigned char>(block[cut]) & 0xC0) == 0x80) --cut;
  std::string last = block.substr(0, cut);
  last.append(*remaining - cut, '\n');
  *remaining = 0;
  return sink(last);
}

}  // namespace

absl::Status GenerateCorpus(const CorpusOptions& options,
                            absl::FunctionRef<absl::Status(absl::string_view)> sink) {
  uint64_t remaining = options.size;
  const int threads = std::max(1, options.threads);
  if (threads == 1) {
    for (uint64_t b = 0; remaining > 0; ++b) {
      absl::Status s = EmitBlock(GenerateBlock(options.flavor, options.seed, b), &remaining, sink);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // Workers claim block numbers in order and park finished blocks in a ring of slots; this
  // thread writes them in order. A worker waits while its slot still holds an unwritten block,
  // so at most `ring` blocks are in memory.
  const uint64_t ring = 2 * static_cast<uint64_t>(threads);
  struct SlotData {
    std::string data;
    uint64_t index = std::numeric_limits<uint64_t>::max();
  };
  std::vector<SlotData> slots(ring);
  std::mutex mu;
  std::condition_variable cv;
  uint64_t next_claim = 0;
  uint64_t written = 0;
  bool stop = false;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      std::unique_lock lock(mu);
      while (true) {
        const uint64_t b = next_claim++;
        cv.wait(lock, [&] { return stop || b < written + ring; });
        if (stop) return;
        lock.unlock();
        std::string data = GenerateBlock(options.flavor, options.seed, b);
        lock.lock();
        slots[b % ring] = {std::move(data), b};
        cv.notify_all();
      }
    });
  }
  absl::Status status;
  for (uint64_t b = 0; remaining > 0 && status.ok(); ++b) {
    std::string data;
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return slots[b % ring].index == b; });
      data = std::move(slots[b % ring].data);
      slots[b % ring].index = std::numeric_limits<uint64_t>::max();
      written = b + 1;
    }
    cv.notify_all();
    status = EmitBlock(data, &remaining, sink);
  }
  {
    std::lock_guard lock(mu);
    stop = true;
  }
  cv.notify_all();
  for (std::thread& w : workers) w.join();
  return status;
}

std::string GenerateCorpusString(const CorpusOptions& options) {
  std::string out;
  out.reserve(options.size);
  absl::Status s = GenerateCorpus(options, [&](absl::string_view piece) {
    out.append(piece.data(), piece.size());
    return absl::OkStatus();
  });
  (void)s;  // the sink never fails
  return out;
}

}  // namespace bpeforge::internal::bench
