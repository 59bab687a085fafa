// Reports (MakeReport, `bpeforge report`) against what they summarize: token counts against
// encoding the files, the curve against training at each size and encoding, token use against
// a slow check of every id, the recorded merge counts against the reference trainer, and bad
// input refused with one line and nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "bpeforge/bpeforge.h"
#include "bpeforge/internal/front_ends.h"
#include "core/internal/utf8.h"
#include "tests/reference_trainer.h"
#include "tests/test_util.h"
#include "tests/text_gen.h"

namespace bpeforge {
namespace {

using internal::testing::CommandResult;
using internal::testing::Exists;
using internal::testing::ExpectCleanFailure;
using internal::testing::RunCli;
using internal::testing::TempDir;
using internal::testing::WriteFile;
using Json = nlohmann::json;

const std::vector<std::string> kSpecials = {"<|endoftext|>"};

std::string Text(uint64_t seed, size_t fragments = 400) {
  internal::testing::TextGenOptions gen;
  gen.fragments = fragments;
  gen.special_tokens = kSpecials;
  return internal::testing::RandomText(seed, gen);
}

TrainOptions Options(size_t vocab_size) {
  TrainOptions options;
  options.vocab_size = vocab_size;
  options.special_tokens = kSpecials;
  options.threads = 2;
  return options;
}

Json Report(const std::vector<ReportTokenizer>& tokenizers, const std::vector<std::string>& inputs,
            std::vector<size_t> sizes = {}) {
  ReportOptions options;
  options.sizes = std::move(sizes);
  options.threads = 2;
  options.throughput_bytes = 1 << 12;
  absl::StatusOr<std::string> json = MakeReport(tokenizers, inputs, options);
  EXPECT_TRUE(json.ok()) << json.status();
  return json.ok() ? Json::parse(*json) : Json();
}

// Training text, held-out text in two files, and a tokenizer trained on the first.
class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string corpus;
    for (uint64_t seed = 0; seed < 20; ++seed) corpus += Text(seed);
    corpus_ = dir_.File("corpus.txt");
    WriteFile(corpus_, corpus);
    for (uint64_t seed : {100, 101}) {
      held_out_.push_back(dir_.File(absl::StrCat("held-out-", seed, ".txt")));
      WriteFile(held_out_.back(), Text(seed, 1500));
    }
    absl::StatusOr<TrainStats> stats = TrainAndSave({corpus_}, Options(kVocab), dir_.File("tok"));
    ASSERT_TRUE(stats.ok()) << stats.status();
  }
  static constexpr size_t kVocab = 700;
  TempDir dir_;
  std::string corpus_;
  std::vector<std::string> held_out_;
};

// The ids of encoding each file, as `encode` gives them.
std::vector<std::vector<TokenId>> EncodeEach(const Tokenizer& t,
                                             const std::vector<std::string>& paths) {
  std::vector<std::vector<TokenId>> ids;
  for (const std::string& path : paths) {
    ids.emplace_back();
    absl::StatusOr<EncodeFilesStats> stats =
        t.EncodeFiles({path}, {}, [&](absl::Span<const TokenId> chunk) {
          ids.back().insert(ids.back().end(), chunk.begin(), chunk.end());
          return absl::OkStatus();
        });
    EXPECT_TRUE(stats.ok()) << stats.status();
  }
  return ids;
}

TEST_F(ReportTest, BytesPerTokenEqualEncodesTokenCounts) {
  absl::StatusOr<Tokenizer> tok = Tokenizer::Load(dir_.File("tok"));
  ASSERT_TRUE(tok.ok()) << tok.status();
  const Json report = Report({{dir_.File("tok")}}, held_out_);
  const Json& t = report["tokenizers"][0];
  const std::vector<std::vector<TokenId>> ids = EncodeEach(*tok, held_out_);
  uint64_t bytes = 0, tokens = 0;
  for (size_t f = 0; f < held_out_.size(); ++f) {
    const uint64_t size = std::filesystem::file_size(held_out_[f]);
    EXPECT_EQ(t["files"][f]["bytes"], size);
    EXPECT_EQ(t["files"][f]["tokens"], ids[f].size());
    EXPECT_DOUBLE_EQ(t["files"][f]["bytes_per_token"].get<double>(),
                     static_cast<double>(size) / ids[f].size());
    bytes += size;
    tokens += ids[f].size();
  }
  EXPECT_EQ(t["total"]["bytes"], bytes);
  EXPECT_EQ(t["total"]["tokens"], tokens);
  EXPECT_EQ(t["curve"].back()["vocab_size"], kVocab);
  EXPECT_EQ(t["curve"].back()["tokens"], tokens);
  // Per script, the tokens add up to all of them.
  uint64_t script_bytes = 0, script_tokens = 0;
  for (const Json& s : t["scripts"]) {
    script_bytes += s["bytes"].get<uint64_t>();
    script_tokens += s["tokens"].get<uint64_t>();
  }
  EXPECT_EQ(script_bytes, bytes);
  EXPECT_EQ(script_tokens, tokens);
}

TEST_F(ReportTest, CurveEqualsTrainingAtThoseSizesAndEncoding) {
  const std::vector<size_t> sizes = {300, 420, 555};
  const Json report = Report({{dir_.File("tok")}}, held_out_, sizes);
  const Json& curve = report["tokenizers"][0]["curve"];
  ASSERT_EQ(curve.size(), sizes.size() + 1);  // and the tokenizer's own size
  for (size_t i = 0; i < sizes.size(); ++i) {
    absl::StatusOr<TrainResult> trained = Train({corpus_}, Options(sizes[i]));
    ASSERT_TRUE(trained.ok()) << trained.status();
    absl::StatusOr<Tokenizer> tok = Tokenizer::FromModel(trained->model);
    ASSERT_TRUE(tok.ok()) << tok.status();
    uint64_t tokens = 0;
    for (const std::vector<TokenId>& ids : EncodeEach(*tok, held_out_)) tokens += ids.size();
    EXPECT_EQ(curve[i]["vocab_size"], sizes[i]);
    EXPECT_EQ(curve[i]["tokens"], tokens) << "at vocabulary size " << sizes[i];
  }
}

// Pre-tokens longer than the encoder's short-piece merging (runs of one letter, thousands of
// bytes) are merged by the long-piece path; the curve must follow it as well.
TEST(ReportLongPiecesTest, CurveEqualsTrainingAndEncodingForVeryLongPreTokens) {
  TempDir dir;
  std::string corpus = Text(7);
  for (size_t i = 1; i <= 60; ++i) {
    absl::StrAppend(&corpus, " ", std::string(i * 9, 'a'), " x", std::string(i * 5, 'b'));
  }
  const std::string corpus_path = dir.File("corpus.txt");
  WriteFile(corpus_path, corpus);
  const std::vector<std::string> held_out = {dir.File("held-out.txt")};
  WriteFile(held_out[0], absl::StrCat(Text(8, 200), " ", std::string(5000, 'a'), " x",
                                      std::string(3001, 'b'), " ", std::string(777, 'a')));
  ASSERT_TRUE(TrainAndSave({corpus_path}, Options(450), dir.File("tok")).ok());
  const std::vector<size_t> sizes = {270, 300, 350, 400};
  const Json curve = Report({{dir.File("tok")}}, held_out, sizes)["tokenizers"][0]["curve"];
  ASSERT_EQ(curve.size(), sizes.size() + 1);
  for (size_t i = 0; i <= sizes.size(); ++i) {
    const size_t size = i < sizes.size() ? sizes[i] : 450;
    absl::StatusOr<TrainResult> trained = Train({corpus_path}, Options(size));
    ASSERT_TRUE(trained.ok()) << trained.status();
    absl::StatusOr<Tokenizer> tok = Tokenizer::FromModel(trained->model);
    ASSERT_TRUE(tok.ok()) << tok.status();
    EXPECT_EQ(curve[i]["vocab_size"], size);
    EXPECT_EQ(curve[i]["tokens"], EncodeEach(*tok, held_out)[0].size())
        << "at vocabulary size " << size;
  }
}

TEST_F(ReportTest, AutoSizesSpanTheVocabulary) {
  const Json curve = Report({{dir_.File("tok")}}, held_out_)["tokenizers"][0]["curve"];
  ASSERT_GE(curve.size(), 20u);
  EXPECT_EQ(curve.front()["vocab_size"], 256 + kSpecials.size());
  EXPECT_EQ(curve.back()["vocab_size"], kVocab);
  for (size_t i = 1; i < curve.size(); ++i) {
    EXPECT_LT(curve[i - 1]["vocab_size"], curve[i]["vocab_size"]);
    EXPECT_GE(curve[i - 1]["tokens"], curve[i]["tokens"]);  // more merges, never more tokens
  }
}

// A vocabulary with tokens that encoding never gives their own bytes: one the pattern cuts
// ("a."), the second of two ids with the same bytes ("abc"), and one that is not whole UTF-8.
Tokenizer HandMade() {
  Vocab vocab;
  for (int b = 0; b < 256; ++b) vocab.push_back(std::string(1, static_cast<char>(b)));
  Merges merges = {{"a", "."},  {"a", "b"},       {"ab", "c"}, {"b", "c"},
                   {"a", "bc"}, {"\xe2", "\x82"}, {" ", "ab"}, {"\xe2\x82", "\xac"}};
  for (const auto& [l, r] : merges) vocab.push_back(l + r);
  vocab.push_back("<|endoftext|>");
  absl::StatusOr<Tokenizer> t = Tokenizer::Create(vocab, merges, kSpecials);
  EXPECT_TRUE(t.ok()) << t.status();
  return *std::move(t);
}

// What a report says of each token's use, worked out slowly: every file encoded, every id
// looked at one by one.
struct SlowTokenUse {
  std::vector<uint64_t> counts;  // by id
  std::vector<TokenId> ordinary, unused, unreachable, partial;
};
SlowTokenUse SlowCheck(const Tokenizer& t, const std::vector<std::string>& paths) {
  SlowTokenUse use;
  use.counts.assign(t.id_limit(), 0);
  for (const std::vector<TokenId>& ids : EncodeEach(t, paths)) {
    for (TokenId id : ids) ++use.counts[id];
  }
  std::set<TokenId> specials;
  for (const std::string& s : t.special_tokens()) specials.insert(*t.SpecialTokenId(s));
  for (TokenId id = 0; id < t.id_limit(); ++id) {
    const std::optional<absl::string_view> bytes = t.TokenBytes(id);
    if (!bytes.has_value() || specials.contains(id)) continue;
    use.ordinary.push_back(id);
    if (use.counts[id] == 0) use.unused.push_back(id);
    const bool utf8 = !internal::FindInvalidUtf8(*bytes).has_value();
    if (!utf8 && bytes->size() > 1) use.partial.push_back(id);
    // Text encodes through the pattern; other bytes can only be part of one pre-token, which
    // encodes to the first id of those bytes.
    TokenId first = id;
    for (TokenId other = 0; other < id; ++other) {
      if (t.TokenBytes(other) == bytes) first = std::min(first, other);
    }
    const bool reachable =
        utf8 ? t.EncodeOrdinary(*bytes) == std::vector<TokenId>{id} : first == id;
    if (!reachable) use.unreachable.push_back(id);
  }
  return use;
}

void ExpectUnusedAndUnreachableAgree(const Json& r, const Tokenizer& t,
                                     const std::vector<std::string>& paths) {
  const SlowTokenUse use = SlowCheck(t, paths);
  EXPECT_EQ(r["unused"].get<std::vector<TokenId>>(), use.unused) << r["name"];
  EXPECT_EQ(r["unreachable"].get<std::vector<TokenId>>(), use.unreachable) << r["name"];
  EXPECT_EQ(r["partial_utf8"].get<std::vector<TokenId>>(), use.partial) << r["name"];
}

TEST_F(ReportTest, UnusedAndUnreachableAgreeWithASlowCheck) {
  WriteFile(held_out_[1], "abc ab a. abc \xe2\x82\xac bc<|endoftext|> zz");
  absl::StatusOr<Tokenizer> trained = Tokenizer::Load(dir_.File("tok"));
  ASSERT_TRUE(trained.ok());
  const std::vector<Tokenizer> tokenizers = {*trained, HandMade()};
  const Json report =
      Report({{tokenizers[0], "", "trained"}, {tokenizers[1], "hand-made"}}, held_out_);
  for (size_t k = 0; k < tokenizers.size(); ++k) {
    ExpectUnusedAndUnreachableAgree(report["tokenizers"][k], tokenizers[k], held_out_);
  }
  // The hand-made vocabulary's: "a." (the pattern cuts it) and the second "abc"; "\xe2\x82" is
  // part of a character, reachable only as a piece of a pre-token.
  const Json& hand = report["tokenizers"][1];
  EXPECT_EQ(hand["unreachable"], Json::array({256, 260}));
  EXPECT_EQ(hand["partial_utf8"], Json::array({261}));
}

// A token entry of the report: its id, bytes and uses as the slow check has them.
void ExpectEntries(const Json& entries, const std::vector<TokenId>& ids, const Tokenizer& t,
                   const std::vector<uint64_t>& counts, const std::string& what) {
  ASSERT_EQ(entries.size(), ids.size()) << what;
  for (size_t i = 0; i < ids.size(); ++i) {
    const absl::string_view bytes = *t.TokenBytes(ids[i]);
    EXPECT_EQ(entries[i]["id"], ids[i]) << what << " " << i;
    EXPECT_EQ(entries[i]["bytes"], bytes.size()) << what << " " << i;
    EXPECT_EQ(entries[i]["count"], counts[ids[i]]) << what << " " << i;
    if (!internal::FindInvalidUtf8(bytes).has_value()) {
      EXPECT_EQ(entries[i]["token"], std::string(bytes)) << what << " " << i;
    }
  }
}

// The most and least used tokens, the longest and the length histogram against every file
// encoded and every id looked at.
TEST_F(ReportTest, TokenListsAndLengthsAgreeWithASlowCheck) {
  absl::StatusOr<Tokenizer> tok = Tokenizer::Load(dir_.File("tok"));
  ASSERT_TRUE(tok.ok()) << tok.status();
  constexpr size_t kList = 20;
  const Json report = Report({{dir_.File("tok")}}, held_out_);
  const Json& r = report["tokenizers"][0];
  const SlowTokenUse use = SlowCheck(*tok, held_out_);
  const std::vector<uint64_t>& counts = use.counts;
  std::vector<TokenId> used;
  for (TokenId id : use.ordinary) {
    if (counts[id] > 0) used.push_back(id);
  }
  ASSERT_GT(used.size(), 2 * kList);
  auto first = [&](std::vector<TokenId> ids, auto before) {
    std::stable_sort(ids.begin(), ids.end(), before);  // ids ascending among equals
    ids.resize(std::min(ids.size(), kList));
    return ids;
  };
  ExpectEntries(r["most_used"],
                first(used, [&](TokenId a, TokenId b) { return counts[a] > counts[b]; }), *tok,
                counts, "most_used");
  ExpectEntries(r["least_used"],
                first(used, [&](TokenId a, TokenId b) { return counts[a] < counts[b]; }), *tok,
                counts, "least_used");
  auto length = [&](TokenId id) { return tok->TokenBytes(id)->size(); };
  ExpectEntries(r["longest"],
                first(use.ordinary, [&](TokenId a, TokenId b) { return length(a) > length(b); }),
                *tok, counts, "longest");
  std::map<size_t, std::pair<uint64_t, uint64_t>> histogram;  // length -> tokens, uses
  for (TokenId id : use.ordinary) {
    ++histogram[length(id)].first;
    histogram[length(id)].second += counts[id];
  }
  Json expected = Json::array();
  for (const auto& [bytes, n] : histogram) {
    expected.push_back({{"bytes", bytes}, {"tokens", n.first}, {"uses", n.second}});
  }
  EXPECT_EQ(r["length_histogram"], expected);
}

// A Hugging Face tokenizer.json with vocab entries that no merge makes, looked up whole
// (ignore_merges): the trained tokenizer's file with three such words added, two of them in the
// held-out text.
TEST_F(ReportTest, ATokenizerJsonCountsAsEncodeDoes) {
  Json j = Json::parse(internal::testing::ReadFileOrDie(dir_.File("tok/tokenizer.json")));
  TokenId next = 0;
  for (const auto& [token, id] : j["model"]["vocab"].items()) {
    next = std::max(next, id.get<TokenId>() + 1);
  }
  for (const Json& added : j["added_tokens"]) next = std::max(next, added["id"].get<TokenId>() + 1);
  // "Ġ" is a space in tokenizer.json's spelling of bytes.
  for (const char* word : {"\xc4\xa0zyzzyva", "quuxquux", "\xc4\xa0neverseen"}) {
    j["model"]["vocab"][word] = next++;
  }
  j["model"]["ignore_merges"] = true;
  const std::string hf_path = dir_.File("words/tokenizer.json");
  std::filesystem::create_directories(dir_.File("words"));
  WriteFile(hf_path, j.dump());
  WriteFile(held_out_[1], absl::StrCat(internal::testing::ReadFileOrDie(held_out_[1]),
                                       " zyzzyva quuxquux.\n zyzzyva zyzzyvas quuxquux"));
  absl::StatusOr<Tokenizer> hf = Tokenizer::Load(hf_path);
  ASSERT_TRUE(hf.ok()) << hf.status();
  absl::StatusOr<Tokenizer> trained = Tokenizer::Load(dir_.File("tok"));
  ASSERT_TRUE(trained.ok()) << trained.status();
  ASSERT_GT(trained->Encode(" zyzzyva").size(), 1u);  // no token of the trained vocabulary
  ASSERT_EQ(hf->Encode(" zyzzyva").size(), 1u);

  const std::vector<size_t> sizes = {300, 555, kVocab};
  const Json report = Report({{dir_.File("tok")}, {hf_path}}, held_out_, sizes);
  const Json& r = report["tokenizers"][1];
  EXPECT_EQ(r["name"], "words");
  EXPECT_EQ(r["vocab_size"], kVocab + 3);
  const std::vector<std::vector<TokenId>> ids = EncodeEach(*hf, held_out_);
  uint64_t tokens = 0;
  for (size_t f = 0; f < held_out_.size(); ++f) {
    EXPECT_EQ(r["files"][f]["tokens"], ids[f].size()) << held_out_[f];
    tokens += ids[f].size();
  }
  EXPECT_EQ(r["total"]["tokens"], tokens);
  ExpectUnusedAndUnreachableAgree(r, *hf, held_out_);
  // Its merges are the trained tokenizer's: the same curve, then the words at its full size.
  const Json& curve = r["curve"];
  ASSERT_EQ(curve.size(), sizes.size() + 1);
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(curve[i], report["tokenizers"][0]["curve"][i]) << sizes[i];
  }
  EXPECT_EQ(curve.back()["vocab_size"], kVocab + 3);
  EXPECT_EQ(curve.back()["tokens"], tokens);
}

TEST_F(ReportTest, RarestMergesAreTheLeastFrequentInTraining) {
  absl::StatusOr<Tokenizer> tok = Tokenizer::Load(dir_.File("tok"));
  ASSERT_TRUE(tok.ok()) << tok.status();
  const std::vector<uint64_t>& counts = tok->model()->merge_counts;
  ASSERT_EQ(counts.size(), kVocab - 257);
  const Json report = Report({{dir_.File("tok")}}, held_out_);
  const Json& rarest = report["tokenizers"][0]["rarest_merges"];
  ASSERT_EQ(rarest.size(), 20u);
  std::vector<uint64_t> sorted = counts;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < rarest.size(); ++i) {
    const size_t merge = rarest[i]["merge"].get<size_t>();
    EXPECT_EQ(rarest[i]["merge_count"], sorted[i]);
    EXPECT_EQ(rarest[i]["merge_count"], counts[merge]);
    const auto& [left, right] = tok->model()->merges[merge];
    EXPECT_EQ(*tok->TokenBytes(rarest[i]["id"].get<TokenId>()), left + right);
  }
  // A tokenizer without recorded counts has none to list.
  std::filesystem::remove(dir_.File("tok/merge_counts.txt"));
  EXPECT_TRUE(Report({{dir_.File("tok")}}, held_out_)["tokenizers"][0]["rarest_merges"].is_null());
}

TEST_F(ReportTest, PageHoldsEveryChartAndTable) {
  const std::string out = dir_.File("report");
  ReportOptions options;
  options.throughput_bytes = 1 << 12;
  absl::StatusOr<std::string> json =
      MakeReport({{dir_.File("tok")}, {HandMade(), "hand-made"}}, held_out_, options);
  ASSERT_TRUE(json.ok()) << json.status();
  ASSERT_TRUE(WriteReport(*json, out).ok());
  EXPECT_EQ(Json::parse(internal::testing::ReadFileOrDie(out + "/report.json")),
            Json::parse(*json));
  const std::string html = internal::testing::ReadFileOrDie(out + "/report.html");
  for (const char* id : {"chart-curve", "chart-files", "chart-scripts", "chart-lengths"}) {
    EXPECT_NE(html.find(absl::StrCat("<svg id=\"", id, "\"")), std::string::npos) << id;
  }
  EXPECT_NE(html.find("<polyline"), std::string::npos);
  EXPECT_NE(html.find("hand-made"), std::string::npos);
  // Nothing to fetch: no script, no link, no image from elsewhere (SVG's namespace is a name).
  const std::string page =
      absl::StrReplaceAll(html, {{"xmlns=\"http://www.w3.org/2000/svg\"", ""}});
  for (const char* fetching : {"<script", "<link", "src=", "http:", "https:", "url("}) {
    EXPECT_EQ(page.find(fetching), std::string::npos) << fetching;
  }
}

// JSON Lines records of two text fields and a source, in two files: each field and each source
// (the two with the most records, then the others pooled) has numbers of its own, which are
// those of encoding each of its records' field.
TEST_F(ReportTest, JsonLinesFieldsAndSourcesHaveNumbersOfTheirOwn) {
  const std::vector<std::string> sources = {"web", "web", "books", "code", ""};  // "": none
  std::vector<std::string> paths;
  std::vector<std::vector<Json>> records(2);
  for (size_t f = 0; f < 2; ++f) {
    paths.push_back(dir_.File(absl::StrCat("records-", f, ".jsonl")));
    std::string lines;
    for (size_t i = 0; i < 40; ++i) {
      Json record = {{"text", Text(1000 * f + i, 30)}, {"title", Text(5000 + 1000 * f + i, 3)}};
      const std::string& source = sources[(i + f) % sources.size()];
      if (!source.empty()) {
        record["source"] = source;
        record["meta"] = {{"source", source}};
      }
      absl::StrAppend(&lines, record.dump(), "\n");
      records[f].push_back(std::move(record));
    }
    WriteFile(paths.back(), lines);
  }
  absl::StatusOr<Tokenizer> tok = Tokenizer::Load(dir_.File("tok"));
  ASSERT_TRUE(tok.ok()) << tok.status();
  ReportOptions options;
  options.threads = 2;
  options.throughput_bytes = 1 << 12;
  options.jsonl_fields = {"text", "title"};
  options.group_by = "source";
  options.max_groups = 2;  // web (16 records), then none, books and code (8 each): none
  absl::StatusOr<std::string> json = MakeReport({{dir_.File("tok")}}, paths, options);
  ASSERT_TRUE(json.ok()) << json.status();
  const Json report = Json::parse(*json);
  const Json& t = report["tokenizers"][0];

  // The rows: file, then field, then web, none and the others.
  struct Want {
    uint64_t documents = 0, bytes = 0, tokens = 0;
  };
  std::vector<Want> want;
  std::vector<uint64_t> file_tokens(2);
  for (size_t f = 0; f < 2; ++f) {
    for (const char* field : {"text", "title"}) {
      for (const std::string group : {"web", "", "(other)"}) {
        Want& w = want.emplace_back();
        for (const Json& record : records[f]) {
          const std::string source = record.value("source", "");
          const bool in = group == "(other)" ? source != "web" && !source.empty() : source == group;
          if (!in) continue;
          const std::string text = record[field];
          ++w.documents;
          w.bytes += text.size();
          w.tokens += tok->Encode(text).size();
        }
        file_tokens[f] += w.tokens;
      }
    }
  }
  ASSERT_EQ(report["sources"].size(), want.size());
  ASSERT_EQ(t["sources"].size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const Json& row = report["sources"][i];
    const Json& numbers = t["sources"][i];
    EXPECT_EQ(row["path"], paths[i / 6]) << i;
    EXPECT_EQ(row["field"], i % 6 < 3 ? "text" : "title") << i;
    const Json group = i % 3 == 0 ? Json("web") : i % 3 == 1 ? Json(nullptr) : Json("(other)");
    EXPECT_EQ(row["group"], group) << i;
    EXPECT_EQ(row.contains("other_values"), i % 3 == 2) << i;
    if (i % 3 == 2) {
      EXPECT_EQ(row["other_values"], 2) << i;
    }
    EXPECT_EQ(row["documents"], want[i].documents) << i;
    EXPECT_EQ(row["bytes"], want[i].bytes) << i;
    EXPECT_EQ(numbers["bytes"], want[i].bytes) << i;
    EXPECT_EQ(numbers["tokens"], want[i].tokens) << i;
    EXPECT_EQ(numbers["group"], group) << i;
  }
  for (size_t f = 0; f < 2; ++f) {
    EXPECT_EQ(t["files"][f]["tokens"], file_tokens[f]);
    EXPECT_EQ(report["inputs"][f]["documents"], 80);  // 40 records, two fields each
  }
  EXPECT_EQ(t["total"]["tokens"], file_tokens[0] + file_tokens[1]);
  absl::StatusOr<std::string> html = ReportHtml(*json);
  ASSERT_TRUE(html.ok()) << html.status();
  EXPECT_NE(html->find("<svg id=\"chart-sources\""), std::string::npos);

  // A dotted name reaches into an object: the same groups.
  options.group_by = "meta.source";
  json = MakeReport({{dir_.File("tok")}}, paths, options);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ(Json::parse(*json)["tokenizers"][0]["sources"], t["sources"]);
  // Without fields or groups to split by, there are no sources.
  options.jsonl_fields.clear();
  options.group_by.clear();
  json = MakeReport({{dir_.File("tok")}}, paths, options);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_TRUE(Json::parse(*json)["sources"].empty());
  EXPECT_EQ(ReportHtml(*json)->find("chart-sources"), std::string::npos);
}

class ReportCliTest : public ReportTest {};

TEST_F(ReportCliTest, WritesBothFilesAndSaysTheHeadlineNumbers) {
  const std::string out = dir_.File("out");
  const CommandResult r = RunCli("report --tokenizer '" + dir_.File("tok") + ",name=mine' '" +
                                 held_out_[0] + "' --out '" + out + "' --sizes 300,500 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Exists(out + "/report.json"));
  EXPECT_TRUE(Exists(out + "/report.html"));
  EXPECT_NE(r.out.find("mine"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bytes/token"), std::string::npos) << r.out;
  const Json report = Json::parse(internal::testing::ReadFileOrDie(out + "/report.json"));
  EXPECT_EQ(report["tokenizers"][0]["name"], "mine");
  EXPECT_EQ(report["tokenizers"][0]["curve"].size(), 3u);
}

TEST_F(ReportCliTest, JsonLinesSourcesAreSummedUpSideBySide) {
  std::string lines;
  for (size_t i = 0; i < 30; ++i) {
    const Json record = {{"text", Text(i, 20)},
                         {"title", Text(100 + i, 2)},
                         {"source", i % 3 == 0 ? "books" : "web"}};
    absl::StrAppend(&lines, record.dump(), "\n");
  }
  WriteFile(dir_.File("records.jsonl"), lines);
  const std::string out = dir_.File("out");
  const CommandResult r =
      RunCli("report --tokenizer '" + dir_.File("tok") + ",name=mine' '" +
             dir_.File("records.jsonl") + "' --out '" + out +
             "' --jsonl-field text --jsonl-field title --group-by source --max-groups 1 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("bytes/token by source"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("records.jsonl text web"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("records.jsonl title (other) 1 values"), std::string::npos) << r.out;
  const Json report = Json::parse(internal::testing::ReadFileOrDie(out + "/report.json"));
  ASSERT_EQ(report["sources"].size(), 4u);
  EXPECT_EQ(report["sources"][0]["documents"], 20);  // web
  EXPECT_EQ(report["sources"][1]["documents"], 10);  // books, pooled
  EXPECT_EQ(report["inputs"][0]["documents"], 60);
}

TEST_F(ReportCliTest, BadInputGivesOneLineAndWritesNothing) {
  const std::string out = dir_.File("out");
  const std::string tok = "--tokenizer '" + dir_.File("tok") + "' ";
  const std::string in = "'" + held_out_[0] + "' ";
  WriteFile(dir_.File("broken.tiktoken"), "not base64 at all\n");
  struct Case {
    std::string args, needle;
  };
  for (const Case& c : std::vector<Case>{
           {tok + "'" + dir_.File("missing.txt") + "'", "missing.txt"},
           {"--tokenizer '" + dir_.File("nothing-here") + "' " + in, "nothing-here"},
           {"--tokenizer '" + dir_.File("broken.tiktoken") + "' " + in, "broken.tiktoken"},
           {tok + in + "--sizes 100", "100"},
           {tok + in + "--sizes 300,99999", "99999"},
           {tok + in + "--sizes 300,x", "--sizes"},
           {tok + "- ", "standard input"},
           {"--tokenizer '" + dir_.File("tok") + ",colour=red' " + in, "colour"},
           {tok + in + "--group-by source", "no input is JSON Lines"},
           {tok + in + "--group-by source --max-groups 0", "--max-groups"},
           {tok + in + "--jsonl-field text --jsonl-field text", "named twice"},
       }) {
    const CommandResult r = RunCli("report " + c.args + " --out '" + out + "' --quiet");
    ExpectCleanFailure(r, c.needle);
    EXPECT_FALSE(Exists(out)) << c.args;
  }
}

}  // namespace
}  // namespace bpeforge
