// The parts of a report (api/report.cc) that do not depend on the tally's groups: token use and
// encoding speed (report_tokens.cc), and the page (report_html.cc). Private to api/.
#ifndef BPEFORGE_API_REPORT_PARTS_H_
#define BPEFORGE_API_REPORT_PARTS_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bpeforge/bpeforge.h"
#include "core/encode/bpe_codec.h"
#include "core/encode/encode_tally.h"

namespace bpeforge::report {

// The ids that have a token, special tokens included.
size_t VocabSize(const internal::BpeCodec& tokenizer);

// The fields of report.json on the use of each token, from the tally of the text: unused,
// unreachable and partial_utf8 (ids) with a sample of each, most_used, least_used, longest,
// length_histogram and rarest_merges (lists of `list_length`, the last null without merge
// counts).
nlohmann::ordered_json TokenUse(const Tokenizer& tokenizer, const internal::EncodeTally& tally,
                                size_t list_length, int threads);

// Up to `bytes` of text from the start of `path` (its documents, for JSON Lines), cut at a line
// end, for timing encoders.
absl::StatusOr<std::vector<std::string>> ThroughputSample(const std::string& path,
                                                          const InputOptions& input, size_t bytes);
// The speed of encoding `sample` on one thread: bytes, seconds, mb_per_s, threads.
nlohmann::ordered_json Throughput(const internal::BpeCodec& tokenizer,
                                  const std::vector<std::string>& sample);

}  // namespace bpeforge::report

#endif  // BPEFORGE_API_REPORT_PARTS_H_
