#include "core/formats/counts_file.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/internal/status_macros.h"
#include "core/pretokenize/pretokenizer.h"

namespace bpeforge::internal {

constexpr absl::string_view kCustomPrefix = "custom:";
namespace {

constexpr uint32_t kVersion = 1;

template <typename T>
void Put(std::string* out, T value) {
  char bytes[sizeof(T)];  // one store on a little-endian machine, where push_back per byte was 8
  for (size_t i = 0; i < sizeof(T); ++i) bytes[i] = static_cast<char>(value >> (8 * i));
  out->append(bytes, sizeof(T));
}

void PutBytes(std::string* out, absl::string_view bytes) {
  Put<uint32_t>(out, static_cast<uint32_t>(bytes.size()));
  out->append(bytes.data(), bytes.size());
}

// Reads the file front to back; every read is bounds-checked.
class Reader {
 public:
  Reader(absl::string_view data, absl::string_view name) : data_(data), name_(name) {}
  template <typename T>
  bool Get(T* value) {
    if (data_.size() - pos_ < sizeof(T)) return false;
    *value = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      *value |= static_cast<T>(static_cast<unsigned char>(data_[pos_ + i])) << (8 * i);
    }
    pos_ += sizeof(T);
    return true;
  }
  bool GetBytes(absl::string_view* bytes) {
    uint32_t n = 0;
    if (!Get(&n) || data_.size() - pos_ < n) return false;
    *bytes = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  void Skip(size_t n) { pos_ = std::min(pos_ + n, data_.size()); }
  absl::Status Error(absl::string_view why) const {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, ": ", why, " at byte offset ", pos_, " of ", data_.size()));
  }
  size_t pos() const { return pos_; }

 private:
  absl::string_view data_;
  absl::string_view name_;
  size_t pos_ = 0;
};

uint32_t Crc32(uint32_t crc, absl::string_view bytes) {
  // zlib takes at most 4 GiB at once.
  while (!bytes.empty()) {
    const size_t n = std::min<size_t>(bytes.size(), 1u << 30);
    crc = static_cast<uint32_t>(
        crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(n)));
    bytes.remove_prefix(n);
  }
  return crc;
}

// The file's bytes before its entries.
std::string HeaderBytes(const CountsHeader& header, uint64_t distinct) {
  std::string bytes(kCountsMagic);
  Put<uint32_t>(&bytes, kVersion);
  PutBytes(&bytes, header.pattern == Pattern::kCustom
                       ? absl::StrCat(kCustomPrefix, header.custom_regex)
                       : std::string(PatternName(header.pattern)));
  Put<uint32_t>(&bytes, static_cast<uint32_t>(header.special_tokens.size()));
  for (const std::string& s : header.special_tokens) PutBytes(&bytes, s);
  Put<uint64_t>(&bytes, header.bytes);
  Put<uint64_t>(&bytes, header.pretokens);
  Put<uint64_t>(&bytes, distinct);
  return bytes;
}

}  // namespace

void CountRun::Reserve(size_t pretokens, size_t bytes) {
  order_.reserve(pretokens);
  entries_.reserve(bytes + 12 * pretokens);
}

void CountRun::Add(absl::string_view pretoken, uint64_t count) {
  unsigned char first[8] = {};
  std::memcpy(first, pretoken.data(), std::min<size_t>(pretoken.size(), 8));
  uint64_t prefix = 0;
  for (unsigned char b : first) prefix = prefix << 8 | b;
  order_.push_back({prefix, entries_.size()});
  AppendCountEntry(pretoken, count, &entries_);
}

void CountRun::Sort(const Parallelism& parallelism) {
  auto less = [this](const Ref& a, const Ref& b) { return Less(a, *this, b); };
  // Below this a run sorts in milliseconds: not worth handing out.
  constexpr size_t kSplitFrom = size_t{1} << 16;
  const size_t n = order_.size();
  const size_t parts = n < kSplitFrom ? 1 : Workers(parallelism);
  auto at = [&](size_t part) { return order_.begin() + static_cast<ptrdiff_t>(n * part / parts); };
  RunParts(parallelism, parts, [&](size_t part) { std::sort(at(part), at(part + 1), less); });
  // Sorted shares merged pairwise, the pairs of a round at once.
  for (size_t width = 1; width < parts; width *= 2) {
    const size_t pairs = (parts + 2 * width - 1) / (2 * width);
    RunParts(parallelism, pairs, [&](size_t pair) {
      const size_t first = 2 * width * pair;
      if (first + width >= parts) return;
      std::inplace_merge(at(first), at(first + width), at(std::min(parts, first + 2 * width)),
                         less);
    });
  }
}

// The runs' entries in the file's order.
class CountRunMerger {
 public:
  explicit CountRunMerger(const std::vector<CountRun>& runs) : runs_(runs), next_(runs.size()) {}
  // The next pre-token and its count, or false when all are taken.
  bool Next(absl::string_view* pretoken, uint64_t* count) {
    size_t best = runs_.size();
    for (size_t r = 0; r < runs_.size(); ++r) {
      if (next_[r] == runs_[r].order_.size()) continue;
      if (best == runs_.size() || runs_[r].Less(Head(r), runs_[best], Head(best))) {
        best = r;
      }
    }
    if (best == runs_.size()) return false;
    const counts_file_internal::Entry entry =
        counts_file_internal::EntryAt(runs_[best].entries_.data() + Head(best).offset);
    *pretoken = entry.pretoken;
    *count = entry.count;
    // The entries lie in the order the workers' tables held them, so each read in the file's
    // order misses the caches: the one kAhead places on in this run is fetched now.
    if (const size_t ahead = ++next_[best] + kAhead; ahead < runs_[best].order_.size()) {
      __builtin_prefetch(runs_[best].entries_.data() + runs_[best].order_[ahead].offset);
    }
    return true;
  }

 private:
  static constexpr size_t kAhead = 16;
  const CountRun::Ref& Head(size_t r) const { return runs_[r].order_[next_[r]]; }
  const std::vector<CountRun>& runs_;
  std::vector<size_t> next_;
};

absl::Status WriteCountsFile(const CountsHeader& header, uint64_t distinct,
                             absl::FunctionRef<bool(absl::string_view*, uint64_t*)> next,
                             absl::FunctionRef<absl::Status(absl::string_view)> write) {
  uint32_t crc = Crc32(0, "");
  std::string buffer = HeaderBytes(header, distinct);
  auto flush = [&]() -> absl::Status {
    crc = Crc32(crc, buffer);
    absl::Status s = write(buffer);
    buffer.clear();
    return s;
  };
  absl::string_view pretoken;
  uint64_t count = 0;
  for (uint64_t i = 0; i < distinct; ++i) {
    if (!next(&pretoken, &count)) return absl::InternalError("fewer count entries than announced");
    AppendCountEntry(pretoken, count, &buffer);
    if (buffer.size() >= (1 << 20)) {
      BPEFORGE_RETURN_IF_ERROR(flush());
    }
  }
  BPEFORGE_RETURN_IF_ERROR(flush());
  Put<uint32_t>(&buffer, crc);
  return write(buffer);
}

absl::Status WriteCountsFile(const CountsHeader& header, uint64_t distinct,
                             const std::vector<absl::string_view>& entries,
                             absl::FunctionRef<absl::Status(absl::string_view)> write) {
  // The entries are the file's bytes already: written as they are.
  const std::string head = HeaderBytes(header, distinct);
  uint32_t crc = Crc32(Crc32(0, ""), head);
  BPEFORGE_RETURN_IF_ERROR(write(head));
  for (absl::string_view block : entries) {
    crc = Crc32(crc, block);
    BPEFORGE_RETURN_IF_ERROR(write(block));
  }
  std::string tail;
  Put<uint32_t>(&tail, crc);
  return write(tail);
}

absl::Status WriteCountsFile(const CountsHeader& header, const std::vector<CountRun>& runs,
                             absl::FunctionRef<absl::Status(absl::string_view)> write) {
  uint64_t distinct = 0;
  for (const CountRun& run : runs) distinct += run.size();
  CountRunMerger merger(runs);
  return WriteCountsFile(
      header, distinct,
      [&](absl::string_view* pretoken, uint64_t* count) { return merger.Next(pretoken, count); },
      write);
}

absl::Status WriteCountsFile(const CountsHeader& header, const PreTokenCounts& counts,
                             absl::FunctionRef<absl::Status(absl::string_view)> write) {
  size_t bytes = 0;
  for (const auto& [word, n] : counts) bytes += word.size();
  std::vector<CountRun> runs(1);
  runs[0].Reserve(counts.size(), bytes);
  for (const auto& [word, n] : counts) runs[0].Add(word, n);
  runs[0].Sort();
  return WriteCountsFile(header, runs, write);
}

absl::StatusOr<CountsFileView> ReadCountsFile(absl::string_view data, absl::string_view name) {
  if (!absl::StartsWith(data, kCountsMagic)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": not a bpeforge count file (written by `bpeforge count`)"));
  }
  // The checksum first, so that a damaged file is named as such rather than by whatever its
  // damage looks like.
  if (data.size() < kCountsMagic.size() + 4) return Reader(data, name).Error("truncated");
  const absl::string_view body = data.substr(0, data.size() - 4);
  uint32_t stored = 0;
  Reader(data.substr(data.size() - 4), name).Get(&stored);
  if (Crc32(Crc32(0, ""), body) != stored) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": checksum mismatch: the file is truncated or corrupted"));
  }
  Reader r(body, name);
  r.Skip(kCountsMagic.size());
  uint32_t version = 0;
  if (!r.Get(&version)) return r.Error("truncated");
  if (version != kVersion) {
    return r.Error(absl::StrCat("format version ", version, " is not ", kVersion));
  }
  CountsFileView view;
  CountsHeader& header = view.header;
  absl::string_view pattern;
  if (!r.GetBytes(&pattern)) return r.Error("truncated");
  if (absl::ConsumePrefix(&pattern, kCustomPrefix)) {
    header.pattern = Pattern::kCustom;
    header.custom_regex = std::string(pattern);
  } else {
    absl::StatusOr<Pattern> parsed = ParsePattern(pattern);
    if (!parsed.ok() || *parsed == Pattern::kCustom) {
      return r.Error(absl::StrCat("unknown pattern \"", pattern, "\""));
    }
    header.pattern = *parsed;
  }
  uint32_t specials = 0;
  if (!r.Get(&specials)) return r.Error("truncated");
  for (uint32_t i = 0; i < specials; ++i) {
    absl::string_view token;
    if (!r.GetBytes(&token)) return r.Error("truncated");
    header.special_tokens.emplace_back(token);
  }
  if (!r.Get(&header.bytes) || !r.Get(&header.pretokens) || !r.Get(&view.distinct)) {
    return r.Error("truncated");
  }
  if (header.pattern == Pattern::kCustom) {
    // Refused now, not once a tokenizer that no encoder can load has been trained and written.
    if (absl::Status s = MakeAnyPreTokenizer(Pattern::kCustom, header.custom_regex).status();
        !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ": the custom pattern it was counted with does not compile: ", s.message()));
    }
  }
  for (const uint64_t total : {header.bytes, header.pretokens}) {
    if (total > kMaxCountTotal) return r.Error("a total in the header is 2^63 or more");
  }
  // Every entry in bounds, so that ForEachCount need not look, and in order, so that files
  // can be merged as they are read (CountFileMerger).
  const size_t first = r.pos();
  absl::string_view previous;
  for (uint64_t i = 0; i < view.distinct; ++i) {
    const size_t at = r.pos();
    absl::string_view word;
    uint64_t n = 0;
    if (!r.GetBytes(&word) || !r.Get(&n)) return r.Error("truncated");
    if (i > 0 && !(previous < word)) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": the entry at byte offset ", at,
                       " is not in order (count files list each pre-token once, by its bytes)"));
    }
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(n, word.size(), &bytes) ||
        __builtin_add_overflow(view.pretoken_bytes, bytes, &view.pretoken_bytes) ||
        view.pretoken_bytes > kMaxCountTotal) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ": the entry at byte offset ", at, " (count ", n,
          ") takes the counts past 2^63 bytes of pre-tokens, more than any text holds"));
    }
    previous = word;
  }
  if (r.pos() != body.size()) return r.Error("unexpected bytes after the counts");
  view.entries = body.substr(first);
  return view;
}

absl::StatusOr<CountsHeader> ParseCountsFile(absl::string_view data, absl::string_view name,
                                             PreTokenCounts* counts) {
  absl::StatusOr<CountsFileView> view = ReadCountsFile(data, name);
  if (!view.ok()) return view.status();
  AddCounts(view->entries, view->distinct, counts);
  return std::move(view->header);
}

void AddCounts(absl::string_view entries, uint64_t distinct, PreTokenCounts* counts) {
  // Room for them all at once: grown by doubling, the map is rehashed at every doubling, each
  // time into fresh pages.
  counts->reserve(counts->size() + distinct);
  PrefetchingAdder add(counts);  // done adding when it goes out of scope
  ForEachCount(entries, [&](absl::string_view word, uint64_t n) { add(word, n); });
}

CountFileMerger::CountFileMerger(const std::vector<absl::string_view>& entries) {
  for (absl::string_view e : entries) {
    if (e.empty()) continue;
    Head head;
    head.rest = e;
    heads_.push_back(head);
  }
  for (Head& head : heads_) Load(&head);
  std::make_heap(heads_.begin(), heads_.end(), Later);
}

void CountFileMerger::Load(Head* head) {
  head->entry = counts_file_internal::EntryAt(head->rest.data());
  head->rest.remove_prefix(head->entry.size);
}

bool CountFileMerger::Next(absl::string_view* pretoken, uint64_t* count) {
  if (heads_.empty()) return false;
  *pretoken = heads_.front().entry.pretoken;
  *count = 0;
  // Every file that lists it is at its head now: files are sorted, each pre-token once.
  while (!heads_.empty() && heads_.front().entry.pretoken == *pretoken) {
    *count += heads_.front().entry.count;
    std::pop_heap(heads_.begin(), heads_.end(), Later);
    Head& head = heads_.back();
    if (head.rest.empty()) {
      heads_.pop_back();
    } else {
      Load(&head);
      std::push_heap(heads_.begin(), heads_.end(), Later);
    }
  }
  return true;
}

std::vector<std::vector<absl::string_view>> SplitCountsAlike(
    const std::vector<absl::string_view>& entries, size_t parts) {
  size_t largest = 0;
  for (size_t f = 1; f < entries.size(); ++f) {
    if (entries[f].size() > entries[largest].size()) largest = f;
  }
  // Part p holds the pre-tokens from the first of the largest file's part p on.
  std::vector<absl::string_view> firsts;
  if (!entries.empty()) {
    for (absl::string_view run : SplitCounts(entries[largest], parts)) {
      firsts.push_back(counts_file_internal::EntryAt(run.data()).pretoken);
    }
  }
  std::vector<std::vector<absl::string_view>> out(std::max<size_t>(firsts.size(), 1));
  for (absl::string_view file : entries) {
    size_t begin = 0, pos = 0;
    for (size_t p = 0; p < out.size(); ++p) {
      // This file's part p ends where its pre-tokens reach the next part's first.
      if (p + 1 < out.size()) {
        while (pos < file.size()) {
          const counts_file_internal::Entry entry =
              counts_file_internal::EntryAt(file.data() + pos);
          if (!(entry.pretoken < firsts[p + 1])) break;
          pos += entry.size;
        }
      } else {
        pos = file.size();
      }
      out[p].push_back(file.substr(begin, pos - begin));
      begin = pos;
    }
  }
  return out;
}

std::vector<absl::string_view> SplitCounts(absl::string_view entries, size_t parts) {
  std::vector<absl::string_view> out;
  const size_t target = entries.size() / std::max<size_t>(parts, 1) + 1;
  size_t begin = 0, pos = 0;
  while (pos < entries.size()) {
    pos += counts_file_internal::EntryAt(entries.data() + pos).size;
    if (pos - begin >= target || pos == entries.size()) {
      out.push_back(entries.substr(begin, pos - begin));
      begin = pos;
    }
  }
  return out;
}

}  // namespace bpeforge::internal
