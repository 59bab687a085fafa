// A report's token use (which tokens the text used, which it cannot, the longest, the rarest
// merges) and the encoding speed of each tokenizer.
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "api/report_parts.h"
#include "api/tokenizer_state.h"
#include "core/internal/utf8.h"
#include "input/byte_source.h"
#include "input/jsonl.h"
#include "parallel/train.h"

namespace bpeforge::report {
namespace {

using Json = nlohmann::ordered_json;

// A token's bytes as JSON text: UTF-8 as it is, any other byte as \xNN.
std::string TokenText(absl::string_view bytes) {
  std::string text;
  while (!bytes.empty()) {
    char32_t cp = 0;
    const size_t length = internal::DecodeUtf8(bytes, &cp);
    if (length == 0) {
      absl::StrAppendFormat(&text, "\\x%02x", static_cast<unsigned char>(bytes[0]));
      bytes.remove_prefix(1);
    } else {
      text.append(bytes.data(), length);
      bytes.remove_prefix(length);
    }
  }
  return text;
}

// The ids of a vocabulary that are tokens of the merges or ranks (not special, not gaps).
std::vector<TokenId> OrdinaryIds(const internal::BpeCodec& t) {
  std::vector<bool> special(t.id_limit());
  for (TokenId id : t.special_ids()) special[id] = true;
  std::vector<TokenId> ids;
  for (size_t id = 0; id < t.id_limit(); ++id) {
    if (!special[id] && t.TokenBytes(static_cast<TokenId>(id)).has_value()) {
      ids.push_back(static_cast<TokenId>(id));
    }
  }
  return ids;
}

// Whether encoding a token's own bytes gives that token back: as text where they are UTF-8
// (the pattern cuts them first), else as one pre-token (they can only be part of one).
std::vector<bool> Reachable(const internal::BpeCodec& t, const std::vector<TokenId>& ids,
                            int threads) {
  std::vector<char> reachable(ids.size());
  tbb::task_arena arena(internal::ThreadsToUse(threads));
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, ids.size(), 1024),
                      [&](const tbb::blocked_range<size_t>& range) {
                        std::vector<TokenId> out;
                        for (size_t i = range.begin(); i < range.end(); ++i) {
                          const absl::string_view bytes = *t.TokenBytes(ids[i]);
                          out.clear();
                          if (internal::FindInvalidUtf8(bytes).has_value()) {
                            t.EncodePreToken(bytes, nullptr, &out);
                          } else {
                            t.EncodeOrdinary(bytes, nullptr, &out);
                          }
                          reachable[i] = out.size() == 1 && out[0] == ids[i];
                        }
                      });
  });
  return {reachable.begin(), reachable.end()};
}

Json Entry(const internal::BpeCodec& t, TokenId id, uint64_t count) {
  const absl::string_view bytes = *t.TokenBytes(id);
  Json j;
  j["id"] = id;
  j["token"] = TokenText(bytes);
  j["bytes"] = bytes.size();
  j["count"] = count;
  return j;
}

// The first `n` ids of `ids` in the order `before` sorts them, as entries.
template <typename Before>
Json Top(const internal::BpeCodec& t, std::vector<TokenId> ids, size_t n,
         const std::vector<uint64_t>& counts, Before before) {
  n = std::min(n, ids.size());
  std::partial_sort(ids.begin(), ids.begin() + n, ids.end(), before);
  Json list = Json::array();
  for (size_t i = 0; i < n; ++i) list.push_back(Entry(t, ids[i], counts[ids[i]]));
  return list;
}

// The merges that occurred least often in training, with how often their tokens were used.
Json RarestMerges(const Tokenizer& tokenizer, const std::vector<uint64_t>& counts, size_t n) {
  // Only a trained folder's model has them: no other model is made (its vocabulary's bytes).
  if (!TokenizerCore::StateOf(tokenizer).has_merge_counts) return nullptr;
  const BpeModel* model = tokenizer.model();
  if (model == nullptr || model->merge_counts.size() != model->merges.size()) return nullptr;
  const internal::BpeCodec& t = TokenizerCore::Of(tokenizer);
  absl::flat_hash_map<std::string, TokenId> first_id;
  for (size_t id = 0; id < t.id_limit(); ++id) {
    if (auto bytes = t.TokenBytes(static_cast<TokenId>(id))) {
      first_id.try_emplace(std::string(*bytes), static_cast<TokenId>(id));
    }
  }
  std::vector<size_t> order(model->merges.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  n = std::min(n, order.size());
  std::partial_sort(order.begin(), order.begin() + n, order.end(), [&](size_t a, size_t b) {
    return std::pair(model->merge_counts[a], a) < std::pair(model->merge_counts[b], b);
  });
  Json list = Json::array();
  for (size_t k = 0; k < n; ++k) {
    const auto& [left, right] = model->merges[order[k]];
    const TokenId id = first_id.at(left + right);
    Json j = Entry(t, id, counts[id]);
    j["merge"] = order[k];
    j["merge_count"] = model->merge_counts[order[k]];
    j["left"] = TokenText(left);
    j["right"] = TokenText(right);
    list.push_back(std::move(j));
  }
  return list;
}

}  // namespace

size_t VocabSize(const internal::BpeCodec& tokenizer) {
  size_t n = 0;
  for (size_t id = 0; id < tokenizer.id_limit(); ++id) {
    n += tokenizer.TokenBytes(static_cast<TokenId>(id)).has_value();
  }
  return n;
}

Json TokenUse(const Tokenizer& tokenizer, const internal::EncodeTally& tally, size_t list_length,
              int threads) {
  const internal::BpeCodec& t = TokenizerCore::Of(tokenizer);
  const std::vector<uint64_t>& counts = tally.id_counts();
  const std::vector<TokenId> ids = OrdinaryIds(t);
  const std::vector<bool> reachable = Reachable(t, ids, threads);
  std::vector<TokenId> used, unused, unreachable, partial;
  std::vector<uint64_t> vocab_by_length, uses_by_length;
  for (size_t i = 0; i < ids.size(); ++i) {
    const TokenId id = ids[i];
    const absl::string_view bytes = *t.TokenBytes(id);
    (counts[id] > 0 ? used : unused).push_back(id);
    if (!reachable[i]) unreachable.push_back(id);
    if (bytes.size() > 1 && internal::FindInvalidUtf8(bytes).has_value()) partial.push_back(id);
    if (bytes.size() >= vocab_by_length.size()) {
      vocab_by_length.resize(bytes.size() + 1);
      uses_by_length.resize(bytes.size() + 1);
    }
    ++vocab_by_length[bytes.size()];
    uses_by_length[bytes.size()] += counts[id];
  }
  auto length = [&t](TokenId id) { return t.TokenBytes(id)->size(); };
  // Samples: the lowest ids, the earliest merges (later ones are rarer, so expected there).
  auto sample = [&](const std::vector<TokenId>& list) {
    Json entries = Json::array();
    for (size_t i = 0; i < std::min(list_length, list.size()); ++i) {
      entries.push_back(Entry(t, list[i], counts[list[i]]));
    }
    return entries;
  };
  Json use;
  use["unused"] = unused;
  use["unused_sample"] = sample(unused);
  use["unreachable"] = unreachable;
  use["unreachable_sample"] = sample(unreachable);
  use["partial_utf8"] = partial;
  use["partial_utf8_sample"] = sample(partial);
  use["most_used"] = Top(t, used, list_length, counts, [&](TokenId a, TokenId b) {
    return std::pair(counts[a], b) > std::pair(counts[b], a);
  });
  use["least_used"] = Top(t, used, list_length, counts, [&](TokenId a, TokenId b) {
    return std::pair(counts[a], a) < std::pair(counts[b], b);
  });
  use["longest"] = Top(t, ids, list_length, counts, [&](TokenId a, TokenId b) {
    return std::pair(length(a), b) > std::pair(length(b), a);
  });
  Json histogram = Json::array();
  for (size_t l = 1; l < vocab_by_length.size(); ++l) {
    if (vocab_by_length[l] == 0) continue;
    histogram.push_back(
        {{"bytes", l}, {"tokens", vocab_by_length[l]}, {"uses", uses_by_length[l]}});
  }
  use["length_histogram"] = std::move(histogram);
  use["rarest_merges"] = RarestMerges(tokenizer, counts, list_length);
  return use;
}

absl::StatusOr<std::vector<std::string>> ThroughputSample(const std::string& path,
                                                          const InputOptions& input, size_t bytes) {
  absl::StatusOr<std::unique_ptr<internal::ByteSource>> source = internal::OpenByteSource(path);
  if (!source.ok()) return source.status();
  std::string text(bytes, '\0');
  size_t filled = 0;
  while (filled < text.size()) {
    absl::StatusOr<size_t> n = (*source)->Read(text.data() + filled, text.size() - filled);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    filled += *n;
  }
  text.resize(filled);
  // Whole lines only (a file that ends sooner is whole), so that no character is cut.
  if (filled == bytes && text.find('\n') != std::string::npos) text.resize(text.rfind('\n') + 1);
  internal::JsonlOptions jsonl;
  jsonl.field = input.jsonl_field;
  jsonl.skip_bad_records = true;
  if (!jsonl.IsJsonl(path)) return std::vector<std::string>{std::move(text)};
  std::vector<std::string> documents;
  internal::JsonlParser parser(jsonl.FieldName());
  uint64_t skipped = 0;
  parser.ForEachDocument(text, 0, 1, true, &skipped, [&](absl::string_view document, uint64_t) {
    documents.emplace_back(document);
    return true;
  });
  return documents;
}

Json Throughput(const internal::BpeCodec& tokenizer, const std::vector<std::string>& sample) {
  internal::EncodeCache cache;
  std::vector<TokenId> ids;
  uint64_t bytes = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& text : sample) {
    ids.clear();
    tokenizer.Encode(text, &cache, &ids);
    bytes += text.size();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Json j;
  j["bytes"] = bytes;
  j["seconds"] = seconds;
  j["mb_per_s"] = seconds > 0 ? Json(bytes / 1e6 / seconds) : Json(nullptr);
  j["threads"] = 1;
  return j;
}

}  // namespace bpeforge::report
