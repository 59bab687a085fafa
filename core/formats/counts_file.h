// Pre-token count files: what `bpeforge count` writes and `bpeforge train --counts` reads, so
// that the expensive pass over the text is made once for many vocabulary sizes, or made in
// pieces (one file per shard of a corpus) and added up.
//
// Layout (all integers little-endian):
//   "BPEFCNTS"                          8-byte magic
//   u32 version (1)
//   u32 n, n bytes                      the pattern's name ("gpt2", "cl100k", "o200k"), or
//                                       "custom:" and the regex
//   u32 k, then k times: u32 n, n bytes the special tokens, in given order
//   u64 input bytes, u64 pre-tokens, u64 distinct pre-tokens
//   distinct times: u32 n, n bytes, u64 count     sorted by bytes, each pre-token once (checked
//                                                  when read), so a file's bytes depend on its
//                                                  counts alone, never on threads, and files
//                                                  merge as they are read
//   u32 CRC-32 (zlib's) of everything before it
#ifndef BPEFORGE_CORE_FORMATS_COUNTS_FILE_H_
#define BPEFORGE_CORE_FORMATS_COUNTS_FILE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/count/pretoken_counts.h"
#include "core/internal/parallelism.h"
#include "core/internal/types.h"

namespace bpeforge::internal {

namespace counts_file_internal {
// A little-endian integer at p (one load where the machine is little-endian).
template <typename T>
T Load(const char* p) {
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<T>(static_cast<unsigned char>(p[i])) << (8 * i);
  }
  return value;
}
// An entry (u32 n, n bytes, u64 count) at p, and its size in bytes.
struct Entry {
  absl::string_view pretoken;
  uint64_t count;
  size_t size;
};
inline Entry EntryAt(const char* p) {
  const auto n = Load<uint32_t>(p);
  return {absl::string_view(p + 4, n), Load<uint64_t>(p + 4 + n), size_t{4} + n + 8};
}
}  // namespace counts_file_internal

// The first bytes of every count file.
inline constexpr absl::string_view kCountsMagic = "BPEFCNTS";

// The largest total a count file may hold, of bytes, of pre-tokens, and of the pre-tokens'
// bytes (each count times its pre-token's length): the trainer counts pairs in 64-bit signed
// integers, and a pair's count is at most that last total.
inline constexpr uint64_t kMaxCountTotal = (uint64_t{1} << 63) - 1;

struct CountsHeader {
  Pattern pattern = Pattern::kGpt2;
  std::vector<std::string> special_tokens;
  uint64_t bytes = 0;
  uint64_t pretokens = 0;
  std::string custom_regex = "";  // for Pattern::kCustom
};

// A count file's entries in the making, in the file's own form, added in any order and then
// sorted: several threads can each fill and sort a run of their own, which WriteCountsFile
// merges. Written straight from a map, the entries were read in the file's order from the
// map's slots, hundreds of MB, a miss each; a run's lie in one block of the file's size.
//
//   CountRun run;
//   run.Add("hello", 3);
//   run.Sort();
//   std::vector<CountRun> runs;
//   runs.push_back(std::move(run));
//   WriteCountsFile(header, runs, write);
class CountRun {
 public:
  void Reserve(size_t pretokens, size_t bytes);
  void Add(absl::string_view pretoken, uint64_t count);
  // Sorts the entries into the file's order; with workers, a share each, then merged.
  void Sort(const Parallelism& parallelism = Parallelism());
  size_t size() const { return order_.size(); }

 private:
  friend class CountRunMerger;
  // An entry's place in the file's order: its first 8 bytes as a big-endian number decide most
  // comparisons without reading the entry; `offset` is where it starts in entries_.
  struct Ref {
    uint64_t prefix;
    uint64_t offset;
  };
  absl::string_view PreToken(const Ref& ref) const {
    return counts_file_internal::EntryAt(entries_.data() + ref.offset).pretoken;
  }
  bool Less(const Ref& a, const CountRun& other, const Ref& b) const {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    return PreToken(a) < other.PreToken(b);  // also when one is a prefix of the other
  }
  std::string entries_;  // u32 n, n bytes, u64 count, as in the file
  std::vector<Ref> order_;
};

// Writes the file's bytes through `write`, in pieces: the entries of `runs`, each sorted, their
// pre-tokens distinct across runs.
absl::Status WriteCountsFile(const CountsHeader& header, const std::vector<CountRun>& runs,
                             absl::FunctionRef<absl::Status(absl::string_view)> write);
// The same from any source of `distinct` entries: next(&pretoken, &count) gives them in order.
absl::Status WriteCountsFile(const CountsHeader& header, uint64_t distinct,
                             absl::FunctionRef<bool(absl::string_view*, uint64_t*)> next,
                             absl::FunctionRef<absl::Status(absl::string_view)> write);
// The same from entries laid out as the file lays them out (AppendCountEntry), in order, in
// pieces, written as they are: `distinct` entries in all.
absl::Status WriteCountsFile(const CountsHeader& header, uint64_t distinct,
                             const std::vector<absl::string_view>& entries,
                             absl::FunctionRef<absl::Status(absl::string_view)> write);
// The same from a map.
absl::Status WriteCountsFile(const CountsHeader& header, const PreTokenCounts& counts,
                             absl::FunctionRef<absl::Status(absl::string_view)> write);

// Checks `data` (magic, version, bounds, checksum, order) and adds its counts to *counts;
// errors name `name` and the byte offset.
absl::StatusOr<CountsHeader> ParseCountsFile(absl::string_view data, absl::string_view name,
                                             PreTokenCounts* counts);

// Adds the entries of `entries` (a CountsFileView's, `distinct` of them) to *counts.
void AddCounts(absl::string_view entries, uint64_t distinct, PreTokenCounts* counts);

// A count file checked whole as ParseCountsFile does, its entries left where they lie. Its
// totals must stay within kMaxCountTotal and a custom pattern must compile. One
// file's pre-tokens are distinct and sorted: the trainer takes them as words as they are.
//
//   absl::StatusOr<CountsFileView> view = ReadCountsFile(file.data(), path);
//   for (absl::string_view part : SplitCounts(view->entries, 4))
//     ForEachCount(part, [](absl::string_view pretoken, uint64_t n) { ... });
struct CountsFileView {
  CountsHeader header;
  uint64_t distinct = 0;        // entries
  uint64_t pretoken_bytes = 0;  // each count times its pre-token's length, added up
  absl::string_view entries;    // each: u32 n, n bytes, u64 count
};
absl::StatusOr<CountsFileView> ReadCountsFile(absl::string_view data, absl::string_view name);

// Appends an entry (u32 n, n bytes, u64 count), as a count file lays it out, to *entries (a
// string of any allocator). Every writer of entries goes through it.
template <typename String>
void AppendCountEntry(absl::string_view pretoken, uint64_t count, String* entries) {
  char length[4], n[8];
  for (size_t i = 0; i < 4; ++i) length[i] = static_cast<char>(pretoken.size() >> (8 * i));
  for (size_t i = 0; i < 8; ++i) n[i] = static_cast<char>(count >> (8 * i));
  entries->append(length, 4);
  entries->append(pretoken.data(), pretoken.size());
  entries->append(n, 8);
}

// Calls fn(pre-token, count) for each entry of `entries`, a CountsFileView's or a part of it.
template <typename Fn>
void ForEachCount(absl::string_view entries, Fn&& fn) {
  const char* p = entries.data();
  const char* const end = p + entries.size();
  while (p < end) {
    const counts_file_internal::Entry entry = counts_file_internal::EntryAt(p);
    fn(entry.pretoken, entry.count);
    p += entry.size;
  }
}

// The pre-tokens of several count files' entries (CountsFileView::entries, each checked by
// ReadCountsFile, so sorted) in the file's order, each once with its counts added up: files
// merged as they are read, without a map.
//
//   CountFileMerger merger({a.entries, b.entries});
//   absl::string_view pretoken;
//   uint64_t n = 0;
//   while (merger.Next(&pretoken, &n)) ...
class CountFileMerger {
 public:
  explicit CountFileMerger(const std::vector<absl::string_view>& entries);
  // The next pre-token and its count, or false when none is left.
  bool Next(absl::string_view* pretoken, uint64_t* count);

 private:
  struct Head {
    absl::string_view rest;  // the file's entries after this one
    counts_file_internal::Entry entry;
  };
  static void Load(Head* head);  // the entry at the front of head->rest
  static bool Later(const Head& a, const Head& b) { return a.entry.pretoken > b.entry.pretoken; }
  std::vector<Head> heads_;  // a heap: the least pre-token in front
};

// `entries` cut between entries into at most `parts` runs of about equal bytes, in order.
std::vector<absl::string_view> SplitCounts(absl::string_view entries, size_t parts);
// Several files' entries cut alike, into at most `parts` parts by the largest's sizes: part p of
// every file holds the pre-tokens of one range, the ranges in order. out[p][f] is file f's.
std::vector<std::vector<absl::string_view>> SplitCountsAlike(
    const std::vector<absl::string_view>& entries, size_t parts);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_FORMATS_COUNTS_FILE_H_
