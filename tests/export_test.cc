// The files a tokenizer is exported as (Hugging Face tokenizer.json, tiktoken rank file and
// tiktoken.json) load back with the same ids; imports refuse what bpeforge does not implement
// with one clear line. That the owning libraries load them is checked by tests/peers/.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "bpeforge/bpeforge.h"
#include "tests/test_util.h"
#include "tests/text_gen.h"

namespace bpeforge {
namespace {

using internal::testing::ExpectCleanFailure;
using internal::testing::FixturesDir;
using internal::testing::ReadFileOrDie;
using internal::testing::RunCli;
using internal::testing::TempDir;
using internal::testing::WriteFile;

const std::vector<std::string> kSpecials = {"<|endoftext|>", "<|pad|>"};

std::string SampleText(uint64_t seed) {
  internal::testing::TextGenOptions options;
  options.special_tokens = kSpecials;
  return internal::testing::RandomText(seed, options) +
         " It's 'ſ DON'T 12345 你好世界 Привет 😀👍🏽<|endoftext|>\r\n\r\n  end ";
}

Tokenizer LoadOrDie(const std::string& path) {
  absl::StatusOr<Tokenizer> t = Tokenizer::Load(path);
  EXPECT_TRUE(t.ok()) << path << ": " << t.status();
  return *std::move(t);
}

class ExportTest : public ::testing::TestWithParam<std::tuple<Pattern, IdLayout>> {};

TEST_P(ExportTest, EveryExportedFileLoadsBackWithTheSameIds) {
  const auto [pattern, layout] = GetParam();
  TempDir dir;
  WriteFile(dir.File("train.txt"), SampleText(1) + SampleText(2));
  TrainOptions options;
  options.vocab_size = 700;
  options.special_tokens = kSpecials;
  options.pattern = pattern;
  options.layout = layout;
  absl::StatusOr<TrainResult> trained = Train({dir.File("train.txt")}, options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  ASSERT_TRUE(SaveTokenizer(trained->model, dir.File("tok")).ok());

  const Tokenizer ours = LoadOrDie(dir.File("tok"));
  const std::string text = SampleText(3);
  const std::vector<TokenId> want = ours.Encode(text);
  for (const char* file : {"tokenizer.json", "tokenizer.tiktoken"}) {
    const Tokenizer back = LoadOrDie(dir.File(absl::StrCat("tok/", file)));
    EXPECT_EQ(back.Encode(text), want) << file;
    EXPECT_EQ(*back.Decode(want), text) << file;
    EXPECT_EQ(back.pattern(), pattern) << file;
    EXPECT_EQ(back.SpecialTokenId("<|pad|>"), ours.SpecialTokenId("<|pad|>")) << file;
  }
  // tokenizer.json holds the merges, so the whole model comes back.
  const Tokenizer hf = LoadOrDie(dir.File("tok/tokenizer.json"));
  ASSERT_NE(hf.model(), nullptr);
  EXPECT_EQ(hf.model()->merges, trained->model.merges);
  EXPECT_EQ(hf.model()->vocab, trained->model.vocab);
  EXPECT_EQ(hf.model()->layout, layout);
}

INSTANTIATE_TEST_SUITE_P(
    PatternsAndLayouts, ExportTest,
    ::testing::Combine(::testing::Values(Pattern::kGpt2, Pattern::kCl100k, Pattern::kO200k),
                       ::testing::Values(IdLayout::kBytesFirst, IdLayout::kHf)));

// GPT-2 itself, exported and loaded back from each file, gives tiktoken's ids.
TEST(ExportTest, Gpt2ExportedGivesTiktokenIds) {
  const std::optional<std::string> fixtures = FixturesDir();
  if (!fixtures) GTEST_SKIP() << "reference data not found";
  LoadOptions options;
  options.special_tokens = {"<|endoftext|>"};
  absl::StatusOr<Tokenizer> gpt2 = Tokenizer::LoadGpt2(
      *fixtures + "/cs336/gpt2_vocab.json", *fixtures + "/cs336/gpt2_merges.txt", options);
  ASSERT_TRUE(gpt2.ok()) << gpt2.status();
  TempDir dir;
  ASSERT_TRUE(gpt2->Save(dir.path()).ok());
  const nlohmann::json expected =
      nlohmann::json::parse(ReadFileOrDie(*fixtures + "/expected_ids.json"))["encodings"]["gpt2"];
  for (const char* file : {"tokenizer.json", "tokenizer.tiktoken"}) {
    const Tokenizer back = LoadOrDie(dir.File(file));
    EXPECT_EQ(back.SpecialTokenId("<|endoftext|>"), 50256u);
    for (const auto& [name, ids] : expected.at("files").items()) {
      EXPECT_EQ(back.Encode(ReadFileOrDie(*fixtures + "/cs336/" + name)),
                ids.get<std::vector<TokenId>>())
          << file << " " << name;
    }
  }
}

// tiktoken's own files, laid out as an export is (tokenizer.tiktoken + tiktoken.json with
// tiktoken's pattern spelling), load with their pattern and special tokens.
TEST(ExportTest, TiktokenJsonBesideARankFileGivesPatternAndSpecials) {
  const std::optional<std::string> fixtures = FixturesDir();
  if (!fixtures) GTEST_SKIP() << "reference data not found";
  const nlohmann::json expected = nlohmann::json::parse(
      ReadFileOrDie(*fixtures + "/expected_ids.json"))["encodings"]["cl100k_base"];
  TempDir dir;
  std::filesystem::copy_file(*fixtures + "/tiktoken_cl100k_base.tiktoken",
                             dir.File("tokenizer.tiktoken"));
  std::filesystem::copy_file(*fixtures + "/tiktoken_cl100k_base.json", dir.File("tiktoken.json"));
  const Tokenizer t = LoadOrDie(dir.File("tokenizer.tiktoken"));
  EXPECT_EQ(t.pattern(), Pattern::kCl100k);
  EXPECT_EQ(t.SpecialTokenId("<|endofprompt|>"), 100276u);
  for (const auto& s : expected.at("strings")) {
    EXPECT_EQ(t.Encode(s.at("text").get<std::string>()), s.at("ids").get<std::vector<TokenId>>());
  }
}

// When two merges build the same bytes, a rank file and a tokenizer.json vocab hold one id
// for them: the first, which is also the only one our encoder produces.
TEST(ExportTest, RepeatedTokenKeepsItsFirstId) {
  Vocab vocab;
  for (int b = 0; b < 256; ++b) vocab.push_back(std::string(1, static_cast<char>(b)));
  const Merges merges = {{"a", "b"}, {"b", "c"}, {"ab", "c"}, {"a", "bc"}};
  for (const auto& [l, r] : merges) vocab.push_back(l + r);  // "abc" at 258 and 259
  absl::StatusOr<Tokenizer> t = Tokenizer::Create(vocab, merges, {"<s>"});
  ASSERT_TRUE(t.ok()) << t.status();
  TempDir dir;
  ASSERT_TRUE(t->Save(dir.path()).ok());
  EXPECT_EQ(ReadFileOrDie(dir.File("tokenizer.tiktoken")).find(" 259\n"), std::string::npos);
  const nlohmann::json hf = nlohmann::json::parse(ReadFileOrDie(dir.File("tokenizer.json")));
  EXPECT_EQ(hf["model"]["vocab"]["abc"], 258);
  EXPECT_EQ(hf["model"]["vocab"]["<s>"], 260);
  const std::string text = "abc xbc aabc abcabc<s>bca";
  const std::vector<TokenId> want = t->Encode(text);
  EXPECT_NE(std::find(want.begin(), want.end(), 258u), want.end());
  EXPECT_EQ(std::find(want.begin(), want.end(), 259u), want.end());
  for (const char* file : {"tokenizer.json", "tokenizer.tiktoken"}) {
    const Tokenizer back = LoadOrDie(dir.File(file));
    EXPECT_EQ(back.Encode(text), want) << file;
    EXPECT_FALSE(back.TokenBytes(259).has_value()) << file;  // the left-out id
    EXPECT_EQ(back.from_rank_file(), std::string(file) == "tokenizer.tiktoken") << file;
    // Neither can be saved as a bpeforge directory, and the error says why.
    const absl::Status saved = back.Save(dir.File(absl::StrCat("again-", file)));
    EXPECT_FALSE(saved.ok()) << file;
    const std::string why = std::string(file) == "tokenizer.json"
                                ? "tokenizer.json leaves id 259 without a token"
                                : "read from the tiktoken rank file";
    EXPECT_NE(saved.message().find(why), absl::string_view::npos) << saved;
  }
}

// Imports refuse, with one line naming it, what bpeforge does not implement.
TEST(ExportTest, UnsupportedTokenizerJsonIsRefusedClearly) {
  TempDir dir;
  WriteFile(dir.File("ok.txt"), "hello world");
  TrainOptions options;
  options.vocab_size = 270;
  absl::StatusOr<TrainResult> trained = Train({dir.File("ok.txt")}, options);
  ASSERT_TRUE(trained.ok());
  ASSERT_TRUE(SaveTokenizer(trained->model, dir.File("tok")).ok());
  const nlohmann::json good = nlohmann::json::parse(ReadFileOrDie(dir.File("tok/tokenizer.json")));
  struct Case {
    std::string what;
    std::function<void(nlohmann::json&)> change;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {"wordpiece", [](nlohmann::json& j) { j["model"]["type"] = "WordPiece"; },
       "model WordPiece is not supported"},
      {"normalizer",
       [](nlohmann::json& j) {
         j["normalizer"] = {{"type", "NFKC"}};
       },
       "normalizer NFKC is not supported"},
      {"regex",
       [](nlohmann::json& j) {
         j["pre_tokenizer"] = {{"type", "Sequence"},
                               {"pretokenizers",
                                {{{"type", "Split"},
                                  {"pattern", {{"Regex", "(\\w+"}}},
                                  {"behavior", "Isolated"},
                                  {"invert", false}},
                                 {{"type", "ByteLevel"}, {"use_regex", false}}}}};
       },
       "bad.json: pattern (\\w+ does not compile"},
      {"prefix", [](nlohmann::json& j) { j["pre_tokenizer"]["add_prefix_space"] = true; },
       "ByteLevel add_prefix_space is not supported"},
      {"lstrip",
       [](nlohmann::json& j) {
         j["added_tokens"] = {{{"id", 300}, {"content", "<x>"}, {"lstrip", true}}};
       },
       "added token \"<x>\" with lstrip is not supported"},
      {"far id", [](nlohmann::json& j) { j["model"]["vocab"]["zz"] = 4294967294u; },
       "token \"zz\" has id 4294967294; ids must be integers below"},
      {"truncated",
       [](nlohmann::json& j) {
         j = nlohmann::json::object({{"model", nullptr}});
       },
       "model null is not supported"},
  };
  for (const Case& c : cases) {
    nlohmann::json j = good;
    c.change(j);
    WriteFile(dir.File("bad.json"), j.dump());
    ExpectCleanFailure(RunCli("encode --tokenizer '" + dir.File("bad.json") + "' '" +
                              dir.File("ok.txt") + "' --output '" + dir.File("ids.bin") + "'"),
                       c.needle);
    EXPECT_FALSE(internal::testing::Exists(dir.File("ids.bin"))) << c.what;
  }
  WriteFile(dir.File("cut.json"), ReadFileOrDie(dir.File("tok/tokenizer.json")).substr(0, 500));
  ExpectCleanFailure(RunCli("encode --tokenizer '" + dir.File("cut.json") + "' '" +
                            dir.File("ok.txt") + "' --output '" + dir.File("ids.bin") + "'"),
                     "cut.json: not valid JSON at byte");
}

TEST(ExportTest, BadTiktokenFilesAreRefusedClearly) {
  TempDir dir;
  WriteFile(dir.File("ok.txt"), "hello world");
  ASSERT_EQ(RunCli("train '" + dir.File("ok.txt") +
                   "' --vocab-size 270 --special-token '<|endoftext|>' --quiet --out '" +
                   dir.File("tok") + "'")
                .exit_code,
            0);
  const std::string ranks = ReadFileOrDie(dir.File("tok/tokenizer.tiktoken"));
  auto encode = [&](const std::string& tokenizer) {
    return RunCli("encode --tokenizer '" + tokenizer + "' '" + dir.File("ok.txt") + "' --output '" +
                  dir.File("ids.bin") + "'");
  };
  // A rank file cut in the middle of a line.
  WriteFile(dir.File("tok/tokenizer.tiktoken"), ranks.substr(0, ranks.size() - 3));
  ExpectCleanFailure(encode(dir.File("tok/tokenizer.tiktoken")), "tokenizer.tiktoken:");
  WriteFile(dir.File("tok/tokenizer.tiktoken"), ranks);
  // A special token whose id an ordinary token has.
  const std::string meta = ReadFileOrDie(dir.File("tok/tiktoken.json"));
  nlohmann::json j = nlohmann::json::parse(meta);
  j["special_tokens"]["<|endoftext|>"] = 104;
  WriteFile(dir.File("tok/tiktoken.json"), j.dump());
  ExpectCleanFailure(encode(dir.File("tok/tokenizer.tiktoken")), "has id 104, which is taken");
  j["special_tokens"]["<|endoftext|>"] = 4000000000u;
  WriteFile(dir.File("tok/tiktoken.json"), j.dump());
  ExpectCleanFailure(encode(dir.File("tok/tokenizer.tiktoken")), "special token ids must be below");
  j = nlohmann::json::parse(meta);
  j["pat_str"] = "[\\p{L}";
  WriteFile(dir.File("tok/tiktoken.json"), j.dump());
  ExpectCleanFailure(encode(dir.File("tok/tokenizer.tiktoken")), "tiktoken.json: pattern [\\p{L}");
  EXPECT_FALSE(internal::testing::Exists(dir.File("ids.bin")));
}

// A byte-level BPE tokenizer.json whose vocab holds `extra` (bytes -> id) beside the 256 bytes
// (byte b = id b) and the merges h+e, l+l, he+ll (ids 256 to 258), which make none of them.
std::string TokenizerJsonWith(const std::vector<std::pair<std::string, int>>& extra,
                              bool ignore_merges) {
  nlohmann::ordered_json vocab;
  // GPT-2's byte-to-unicode form of each byte, as tokenizer.json spells tokens.
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || b >= 0xae;
    int code = b;
    if (!printable) {
      code = 256;
      for (int c = 0; c < b; ++c) {
        code += !((c >= '!' && c <= '~') || (c >= 0xa1 && c <= 0xac) || c >= 0xae);
      }
    }
    std::string utf8 = code < 0x80 ? std::string(1, static_cast<char>(code))
                                   : std::string{static_cast<char>(0xc0 | (code >> 6)),
                                                 static_cast<char>(0x80 | (code & 0x3f))};
    vocab[utf8] = b;
  }
  vocab["he"] = 256;
  vocab["ll"] = 257;
  vocab["hell"] = 258;
  for (const auto& [token, id] : extra) vocab[token] = id;
  nlohmann::ordered_json byte_level = {{"type", "ByteLevel"},
                                       {"add_prefix_space", false},
                                       {"trim_offsets", true},
                                       {"use_regex", true}};
  nlohmann::ordered_json j = {{"version", "1.0"},
                              {"added_tokens", nlohmann::json::array()},
                              {"normalizer", nullptr},
                              {"pre_tokenizer", byte_level},
                              {"post_processor", nullptr},
                              {"decoder", byte_level},
                              {"model",
                               {{"type", "BPE"},
                                {"dropout", nullptr},
                                {"unk_token", nullptr},
                                {"continuing_subword_prefix", nullptr},
                                {"end_of_word_suffix", nullptr},
                                {"fuse_unk", false},
                                {"byte_fallback", false},
                                {"ignore_merges", ignore_merges},
                                {"vocab", vocab},
                                {"merges", {"h e", "l l", "he ll"}}}}};
  return j.dump();
}

// A vocab entry that no merge makes: with ignore_merges, Hugging Face gives a pre-token that is
// that entry whole its id, and merges everything else; without, merges alone. Every route to
// the tokenizer gives Hugging Face's ids (the npm `tokenizers` gave the ids written here): the
// file itself, the folder `export` writes from it, and that folder's rank file.
TEST(ExportTest, AVocabEntryNoMergeMakesGivesHuggingFacesIds) {
  TempDir dir;
  const std::string text = "world hello world worlds hellos";
  const std::vector<TokenId> hf = {259, 32,  258, 111, 32,  119, 111, 114, 108, 100, 32,
                                   119, 111, 114, 108, 100, 115, 32,  258, 111, 115};
  WriteFile(dir.File("world.json"), TokenizerJsonWith({{"world", 259}}, true));
  EXPECT_EQ(LoadOrDie(dir.File("world.json")).Encode(text), hf);
  auto r = RunCli("export --tokenizer '" + dir.File("world.json") + "' --out '" +
                  dir.File("exported") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* route : {"exported", "exported/tokenizer.json", "exported/tokenizer.tiktoken"}) {
    EXPECT_EQ(LoadOrDie(dir.File(route)).Encode(text), hf) << route;
  }
  // Without ignore_merges, merges alone: "world" is its bytes.
  WriteFile(dir.File("merges-only.json"), TokenizerJsonWith({{"world", 259}}, false));
  EXPECT_EQ(LoadOrDie(dir.File("merges-only.json")).Encode("world hello"),
            (std::vector<TokenId>{119, 111, 114, 108, 100, 32, 258, 111}));
  // bpeforge's files would make "world" a pre-token's id: not exported.
  ExpectCleanFailure(RunCli("export --tokenizer '" + dir.File("merges-only.json") + "' --out '" +
                            dir.File("merges-only") + "'"),
                     "which no merge makes, and its ignore_merges is false");
  // "hello" is no merge's, but tiktoken would make it from "hell" + "o" inside "hellos", where
  // Hugging Face does not: no rank file can hold this vocab, so it is not exported.
  WriteFile(dir.File("hello.json"), TokenizerJsonWith({{"hello", 259}}, true));
  EXPECT_EQ(LoadOrDie(dir.File("hello.json")).Encode("hello hello hellos"),
            (std::vector<TokenId>{259, 32, 258, 111, 32, 258, 111, 115}));
  ExpectCleanFailure(RunCli("export --tokenizer '" + dir.File("hello.json") + "' --out '" +
                            dir.File("hello-exported") + "'"),
                     "\"hello\" (id 259) is made by no merge");
  EXPECT_FALSE(std::filesystem::exists(dir.File("hello-exported")));
}

// A rank file that gives one token two ranks, or one rank two tokens, is refused with the line of
// the second and of the first.
TEST(ExportTest, RepeatedRanksOrTokensNameTheirLines) {
  TempDir dir;
  std::string bytes_ranks;
  for (int b = 0; b < 256; ++b) {
    bytes_ranks +=
        absl::StrCat(absl::Base64Escape(std::string(1, static_cast<char>(b))), " ", b, "\n");
  }
  WriteFile(dir.File("text.txt"), "abc");
  WriteFile(dir.File("rank.tiktoken"), bytes_ranks + "YWI= 256\nYWM= 256\n");
  WriteFile(dir.File("token.tiktoken"), bytes_ranks + "YWI= 256\nYWI= 257\n");
  const std::string encode =
      " --pattern gpt2 '" + dir.File("text.txt") + "' --output '" + dir.File("ids") + "'";
  ExpectCleanFailure(RunCli("encode --ranks '" + dir.File("rank.tiktoken") + "'" + encode),
                     "rank.tiktoken:258: rank 256 is used twice (first on line 257)");
  ExpectCleanFailure(RunCli("encode --ranks '" + dir.File("token.tiktoken") + "'" + encode),
                     "token.tiktoken:258: token \"ab\" is ranked twice (first on line 257)");
}

}  // namespace
}  // namespace bpeforge
