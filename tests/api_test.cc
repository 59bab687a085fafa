// The public C++ API (include/bpeforge/bpeforge.h), as a library user calls it: training
// against the slow reference, counts reused for another vocab size, save and load, encoding
// in memory, in batches, streamed and from files, cancellation, and errors.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bpeforge/bpeforge.h"
#include "bpeforge/internal/front_ends.h"
#include "tests/reference_trainer.h"
#include "tests/test_util.h"
#include "tests/text_gen.h"

namespace bpeforge {
namespace {

using internal::testing::TempDir;

const std::vector<std::string> kSpecials = {"<|endoftext|>"};

// Writes seeded random documents and returns their paths.
std::vector<std::string> WriteDocs(const TempDir& dir, std::vector<std::string>* docs, int n = 3) {
  std::vector<std::string> paths;
  for (int i = 0; i < n; ++i) {
    internal::testing::TextGenOptions gen;
    gen.special_tokens = kSpecials;
    docs->push_back(internal::testing::RandomText(100 + i, gen));
    paths.push_back(dir.File("doc" + std::to_string(i) + ".txt"));
    internal::testing::WriteFile(paths.back(), docs->back());
  }
  return paths;
}

TrainOptions Options(size_t vocab_size, int threads = 2) {
  TrainOptions options;
  options.vocab_size = vocab_size;
  options.special_tokens = kSpecials;
  options.threads = threads;
  return options;
}

// A tokenizer trained on `paths` to vocab 300.
Tokenizer TrainedOn(const std::vector<std::string>& paths) {
  absl::StatusOr<TrainResult> trained = Train(paths, Options(300));
  if (!trained.ok()) throw std::runtime_error(std::string(trained.status().message()));
  absl::StatusOr<Tokenizer> t = Tokenizer::FromModel(trained->model);
  if (!t.ok()) throw std::runtime_error(std::string(t.status().message()));
  return *std::move(t);
}

TEST(ApiTest, TrainMatchesReferenceAndCountsTrainTheSame) {
  TempDir dir;
  std::vector<std::string> docs;
  const std::vector<std::string> paths = WriteDocs(dir, &docs);
  for (size_t vocab_size : {300, 420}) {
    absl::StatusOr<TrainResult> trained = Train(paths, Options(vocab_size));
    ASSERT_TRUE(trained.ok()) << trained.status();
    EXPECT_EQ(trained->model.merges,
              internal::testing::ReferenceTrain(docs, vocab_size, kSpecials));
    EXPECT_EQ(trained->model.vocab.size(), trained->model.merges.size() + 257);

    // Counted into a count file, opened, and trained from: the same model.
    const std::string counts_path = dir.File(absl::StrCat(vocab_size, ".counts"));
    absl::StatusOr<CountFiles> counts = CountFiles::Count(paths, Options(vocab_size), counts_path);
    ASSERT_TRUE(counts.ok()) << counts.status();
    EXPECT_TRUE(counts->counted().counts.empty());
    EXPECT_EQ(counts->counted().special_tokens, kSpecials);
    EXPECT_EQ(counts->counted().pretokens, trained->stats.pretokens);
    EXPECT_EQ(counts->counted().distinct, trained->stats.distinct_pretokens);
    EXPECT_EQ(counts->counted().input.documents, paths.size());
    absl::StatusOr<TrainResult> from_counts = counts->Train(Options(vocab_size, 1));
    ASSERT_TRUE(from_counts.ok()) << from_counts.status();
    EXPECT_EQ(from_counts->model.merges, trained->model.merges);
    EXPECT_EQ(from_counts->model.vocab, trained->model.vocab);
    absl::StatusOr<CountFiles> reopened = CountFiles::Open({counts_path});
    ASSERT_TRUE(reopened.ok()) << reopened.status();
    EXPECT_EQ(reopened->counted().distinct, counts->counted().distinct);
  }
}

TEST(ApiTest, SaveLoadEncodeDecodeRoundTrip) {
  TempDir dir;
  std::vector<std::string> docs;
  const std::vector<std::string> paths = WriteDocs(dir, &docs);
  for (IdLayout layout : {IdLayout::kBytesFirst, IdLayout::kHf}) {
    TrainOptions options = Options(400);
    options.layout = layout;
    absl::StatusOr<TrainResult> trained = Train(paths, options);
    ASSERT_TRUE(trained.ok()) << trained.status();
    const std::string out = dir.File(std::string(IdLayoutName(layout)));
    ASSERT_TRUE(SaveTokenizer(trained->model, out).ok());

    absl::StatusOr<Tokenizer> loaded = Tokenizer::Load(out);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    absl::StatusOr<Tokenizer> direct = Tokenizer::FromModel(trained->model);
    ASSERT_TRUE(direct.ok()) << direct.status();
    ASSERT_NE(loaded->model(), nullptr);
    EXPECT_EQ(loaded->model()->vocab, trained->model.vocab);
    EXPECT_EQ(loaded->model()->layout, layout);
    for (const std::string& doc : docs) {
      const std::vector<TokenId> ids = loaded->Encode(doc);
      EXPECT_EQ(direct->Encode(doc), ids);
      absl::StatusOr<std::string> text = loaded->Decode(ids);
      ASSERT_TRUE(text.ok());
      EXPECT_EQ(*text, doc);
    }
    // A special token is one id, and ordinary text when asked.
    const std::optional<TokenId> eot = loaded->SpecialTokenId("<|endoftext|>");
    ASSERT_TRUE(eot.has_value());
    EXPECT_EQ(loaded->Encode("<|endoftext|>"), std::vector<TokenId>{*eot});
    EXPECT_GT(loaded->EncodeOrdinary("<|endoftext|>").size(), 1u);
  }
}

// TrainAndSave never holds the vocabulary's bytes (tokens stay pairs of ids until written); its
// files must be those of Train + SaveTokenizer, byte for byte. Runs of one letter and of short
// cycles make tokens past the 64 bytes the tree keeps whole, and tokens with equal bytes made
// by different merges.
TEST(ApiTest, TrainAndSaveWritesTheFilesOfSaveTokenizer) {
  TempDir dir;
  std::vector<std::string> docs;
  std::vector<std::string> paths = WriteDocs(dir, &docs, 2);
  std::string runs;
  for (int i = 0; i < 5; ++i) {
    runs += std::string(700 + 37 * i, 'x') + " ";
    for (int j = 0; j < 90 + i; ++j) runs += "xy";
    runs += " ";
    for (int j = 0; j < 60; ++j) runs += "yyx";
    runs += "<|endoftext|>\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\n";
  }
  paths.push_back(dir.File("runs.txt"));
  internal::testing::WriteFile(paths.back(), runs);
  const char* kFiles[] = {"vocab.json",         "merges.txt",    "tokenizer.json",
                          "tokenizer.tiktoken", "tiktoken.json", "bpeforge.json"};
  for (IdLayout layout : {IdLayout::kBytesFirst, IdLayout::kHf}) {
    TrainOptions options = Options(700);
    options.layout = layout;
    absl::StatusOr<TrainResult> trained = Train(paths, options);
    ASSERT_TRUE(trained.ok()) << trained.status();
    size_t longest = 0;
    for (const std::string& token : trained->model.vocab) longest = std::max(longest, token.size());
    EXPECT_GT(longest, 500u);
    const std::string name(IdLayoutName(layout));
    ASSERT_TRUE(SaveTokenizer(trained->model, dir.File(name + "-saved")).ok());
    absl::StatusOr<TrainStats> stats = TrainAndSave(paths, options, dir.File(name + "-direct"));
    ASSERT_TRUE(stats.ok()) << stats.status();
    EXPECT_EQ(stats->vocab_size, trained->model.vocab.size());
    EXPECT_EQ(stats->merges, trained->model.merges.size());
    absl::StatusOr<CountedText> counts = CountShare(paths, options, 0, 1);
    ASSERT_TRUE(counts.ok()) << counts.status();
    ASSERT_TRUE(TrainFromCountsAndSave(counts->counts, options, dir.File(name + "-counts")).ok());
    for (const char* file : kFiles) {
      const std::string saved = internal::testing::ReadFileOrDie(dir.File(name + "-saved/" + file));
      EXPECT_EQ(internal::testing::ReadFileOrDie(dir.File(name + "-direct/" + file)), saved)
          << name << " " << file;
      EXPECT_EQ(internal::testing::ReadFileOrDie(dir.File(name + "-counts/" + file)), saved)
          << name << " " << file;
    }
  }
}

TEST(ApiTest, CountAndSaveWritesTheFileOfSaveCounts) {
  TempDir dir;
  std::vector<std::string> docs;
  std::vector<std::string> paths = WriteDocs(dir, &docs, 4);
  // Pre-tokens that share their first 8 bytes, hold zero bytes or are prefixes of others: the
  // file's order is decided past the prefix the runs sort by.
  std::string ties = "abcdefghij abcdefghik abcdefgh abcdefg ";
  constexpr char kZeros[] = "x\0\0y z\0 z\0\0 z ";
  ties += std::string(kZeros, sizeof(kZeros) - 1);
  paths.push_back(dir.File("ties.txt"));
  internal::testing::WriteFile(paths.back(), ties + ties);
  for (int threads : {1, 2, 3}) {
    for (size_t chunk : {size_t{64}, size_t{4} << 20}) {
      TrainOptions options = Options(300, threads);
      options.chunk_bytes = chunk;
      const std::string name = absl::StrCat(threads, "-", chunk);
      absl::StatusOr<CountedText> counted = CountShare(paths, options, 0, 1);
      ASSERT_TRUE(counted.ok()) << counted.status();
      ASSERT_TRUE(SaveCounts(*counted, dir.File(name + "-map.counts")).ok());
      absl::StatusOr<CountedText> saved = CountAndSave(paths, options, dir.File(name + ".counts"));
      ASSERT_TRUE(saved.ok()) << saved.status();
      EXPECT_EQ(internal::testing::ReadFileOrDie(dir.File(name + ".counts")),
                internal::testing::ReadFileOrDie(dir.File(name + "-map.counts")))
          << name;
      EXPECT_TRUE(saved->counts.empty());
      EXPECT_EQ(saved->distinct, counted->counts.size());
      EXPECT_EQ(counted->distinct, counted->counts.size());
      EXPECT_EQ(saved->pretokens, counted->pretokens);
      EXPECT_EQ(saved->bytes, counted->bytes);
      EXPECT_EQ(saved->special_tokens, kSpecials);
    }
  }
  // A bad input leaves no file behind, and the file it would replace as it was.
  internal::testing::WriteFile(dir.File("bad.txt"), "ok \xff not UTF-8");
  internal::testing::WriteFile(dir.File("kept.counts"), "kept");
  absl::StatusOr<CountedText> bad =
      CountAndSave({paths[0], dir.File("bad.txt")}, Options(300), dir.File("kept.counts"));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(internal::testing::ReadFileOrDie(dir.File("kept.counts")), "kept");
  EXPECT_EQ(CountAndSave(paths, Options(300), dir.File("no/such/folder/x.counts")).status().code(),
            absl::StatusCode::kNotFound);
  // An output that is one of the inputs is refused, the input left as it was.
  const std::string input = internal::testing::ReadFileOrDie(paths[1]);
  absl::Status over_input = CountAndSave(paths, Options(300), paths[1]).status();
  EXPECT_EQ(over_input.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(over_input.message().find("refusing to overwrite"), std::string::npos) << over_input;
  EXPECT_EQ(CountFiles::Count(paths, Options(300), paths[1]).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(internal::testing::ReadFileOrDie(paths[1]), input);
}

// More distinct pre-tokens than a run sorts on one thread: the threads sort shares of it and
// merge them, into the order one thread gives.
TEST(ApiTest, CountAndSaveSortsALargeRunOnEveryThread) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 100000; ++i) {
    // Half tie on their first 8 bytes, the others do not; all in no particular order.
    const int k = (i * 7919) % 100000;
    const std::string suffix = {
        static_cast<char>('a' + k % 26), static_cast<char>('a' + k / 26 % 26),
        static_cast<char>('a' + k / 676 % 26), static_cast<char>('a' + k / 17576 % 26)};
    text += k % 2 == 0 ? absl::StrCat(" abcdefgh", suffix) : absl::StrCat(" ", suffix, "xyz");
  }
  const std::string path = dir.File("many.txt");
  internal::testing::WriteFile(path, text);
  for (int threads : {2, 3}) {
    const TrainOptions options = Options(300, threads);
    const std::string name = absl::StrCat(threads);
    absl::StatusOr<CountedText> counted = CountShare({path}, options, 0, 1);
    ASSERT_TRUE(counted.ok()) << counted.status();
    ASSERT_GT(counted->counts.size(), size_t{1} << 16);
    ASSERT_TRUE(SaveCounts(*counted, dir.File(name + "-map.counts")).ok());
    ASSERT_TRUE(CountAndSave({path}, options, dir.File(name + ".counts")).ok());
    EXPECT_EQ(internal::testing::ReadFileOrDie(dir.File(name + ".counts")),
              internal::testing::ReadFileOrDie(dir.File(name + "-map.counts")))
        << name;
  }
}

TEST(ApiTest, CountFilesAddUpToTheCountOfTheWhole) {
  TempDir dir;
  std::vector<std::string> docs;
  const std::vector<std::string> paths = WriteDocs(dir, &docs, 5);
  absl::StatusOr<CountedText> whole = CountAndSave(paths, Options(300), dir.File("whole.counts"));
  ASSERT_TRUE(whole.ok()) << whole.status();
  const std::string expected = internal::testing::ReadFileOrDie(dir.File("whole.counts"));
  // An empty file's counts too: nothing counted, a valid count file.
  internal::testing::WriteFile(dir.File("empty.txt"), "");
  ASSERT_TRUE(CountAndSave({dir.File("empty.txt")}, Options(300), dir.File("empty.counts")).ok());
  for (size_t shares : {2, 3, 7}) {
    std::vector<std::string> parts = {dir.File("empty.counts")};
    for (size_t share = 0; share < shares; ++share) {
      parts.push_back(dir.File(absl::StrCat(shares, "-", share, ".counts")));
      absl::StatusOr<CountedText> part = CountShare(paths, Options(300), share, shares);
      ASSERT_TRUE(part.ok()) << part.status();
      ASSERT_TRUE(SaveCounts(*part, parts.back()).ok());
    }
    absl::StatusOr<CountFiles> files = CountFiles::Open(parts);
    ASSERT_TRUE(files.ok()) << files.status();
    const std::string merged = dir.File(absl::StrCat(shares, ".counts"));
    absl::StatusOr<CountedText> saved = files->Save(merged);
    ASSERT_TRUE(saved.ok()) << saved.status();
    EXPECT_EQ(internal::testing::ReadFileOrDie(merged), expected) << shares;
    EXPECT_EQ(saved->distinct, whole->distinct);
    EXPECT_EQ(saved->pretokens, whole->pretokens);
  }
}

// Adding count files up into one of them would replace counts it is still reading: refused, as
// the command line refuses it, also through a symbolic link, and the file kept.
TEST(ApiTest, CountFilesRefuseTheirOwnInputAsOutput) {
  TempDir dir;
  std::vector<std::string> docs;
  const std::vector<std::string> paths = WriteDocs(dir, &docs, 2);
  const std::string a = dir.File("a.counts"), b = dir.File("b.counts");
  ASSERT_TRUE(CountAndSave({paths[0]}, Options(300), a).ok());
  ASSERT_TRUE(CountAndSave({paths[1]}, Options(300), b).ok());
  const std::string before = internal::testing::ReadFileOrDie(a);
  std::filesystem::create_symlink(a, dir.File("link.counts"));
  for (const std::string& output : {a, dir.File("link.counts")}) {
    absl::StatusOr<CountFiles> files = CountFiles::Open({a, b});
    ASSERT_TRUE(files.ok()) << files.status();
    absl::StatusOr<CountedText> saved = files->Save(output);
    EXPECT_EQ(saved.status().code(), absl::StatusCode::kInvalidArgument) << saved.status();
    EXPECT_NE(saved.status().message().find("refusing to overwrite"), std::string::npos)
        << saved.status();
    EXPECT_EQ(internal::testing::ReadFileOrDie(a), before);
  }
}

// A count file written to in place after it was opened (its counts no longer those checked)
// is an error when trained from, not counts silently different.
TEST(ApiTest, CountFilesChangedInPlaceAreAnError) {
  TempDir dir;
  std::vector<std::string> docs;
  const std::vector<std::string> paths = WriteDocs(dir, &docs, 1);
  const std::string a = dir.File("a.counts");
  ASSERT_TRUE(CountAndSave(paths, Options(300), a).ok());
  absl::StatusOr<CountFiles> files = CountFiles::Open({a});
  ASSERT_TRUE(files.ok()) << files.status();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a later modification time
  {
    std::fstream out(a, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(-20, std::ios::end);
    out.put('\x7f');  // a count's byte: same size, other counts
  }
  absl::StatusOr<TrainResult> trained = files->Train(Options(300));
  EXPECT_EQ(trained.status().code(), absl::StatusCode::kDataLoss) << trained.status();
  EXPECT_NE(trained.status().message().find(a), std::string::npos) << trained.status();
}

TEST(ApiTest, CountFilesTrainAsTheTextForEveryVocabSize) {
  TempDir dir;
  std::vector<std::string> docs;
  const std::vector<std::string> paths = WriteDocs(dir, &docs, 4);
  const char* kFiles[] = {"vocab.json", "merges.txt", "tokenizer.json", "tokenizer.tiktoken"};
  // One count file of the whole, and the same counts in two files (shares added up).
  absl::StatusOr<CountedText> whole = CountShare(paths, Options(300), 0, 1);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_TRUE(SaveCounts(*whole, dir.File("whole.counts")).ok());
  for (size_t share : {0, 1}) {
    absl::StatusOr<CountedText> part = CountShare(paths, Options(300), share, 2);
    ASSERT_TRUE(part.ok()) << part.status();
    ASSERT_TRUE(SaveCounts(*part, dir.File("part" + std::to_string(share) + ".counts")).ok());
  }
  const std::vector<std::vector<std::string>> sets = {
      {dir.File("whole.counts")}, {dir.File("part0.counts"), dir.File("part1.counts")}};
  for (const std::vector<std::string>& set : sets) {
    for (int threads : {1, 2}) {
      absl::StatusOr<CountFiles> files = CountFiles::Open(set);
      ASSERT_TRUE(files.ok()) << files.status();
      EXPECT_EQ(files->counted().pretokens, whole->pretokens);
      EXPECT_EQ(files->counted().bytes, whole->bytes);
      EXPECT_EQ(files->counted().special_tokens, kSpecials);
      EXPECT_TRUE(files->counted().counts.empty());
      // A sweep: one open, several sizes, each as trained from the text.
      for (size_t vocab_size : {300, 420, 300}) {
        const std::string name = absl::StrCat(set.size(), "-", threads, "-", vocab_size);
        TrainOptions options = Options(vocab_size, threads);
        absl::StatusOr<TrainStats> stats = TrainAndSave(*files, options, dir.File(name));
        ASSERT_TRUE(stats.ok()) << stats.status();
        EXPECT_EQ(stats->pretokens, whole->pretokens);
        EXPECT_EQ(stats->distinct_pretokens, whole->counts.size());
        ASSERT_TRUE(TrainAndSave(paths, options, dir.File(name + "-text")).ok());
        for (const char* file : kFiles) {
          EXPECT_EQ(internal::testing::ReadFileOrDie(dir.File(name + "/" + file)),
                    internal::testing::ReadFileOrDie(dir.File(name + "-text/" + file)))
              << name << " " << file;
        }
        // And as a model, in either id layout.
        for (IdLayout layout : {IdLayout::kBytesFirst, IdLayout::kHf}) {
          options.layout = layout;
          absl::StatusOr<TrainResult> model = files->Train(options);
          ASSERT_TRUE(model.ok()) << model.status();
          absl::StatusOr<TrainResult> from_text = Train(paths, options);
          ASSERT_TRUE(from_text.ok()) << from_text.status();
          EXPECT_EQ(model->model.vocab, from_text->model.vocab) << name;
          EXPECT_EQ(model->model.merges, from_text->model.merges) << name;
          EXPECT_EQ(model->model.special_tokens, kSpecials);
          EXPECT_EQ(model->model.layout, layout);
          EXPECT_EQ(model->stats.pretokens, whole->pretokens);
          EXPECT_EQ(model->stats.bytes, whole->bytes);
        }
      }
      // Options that differ from what the files were counted with are refused.
      TrainOptions other = Options(300, threads);
      other.special_tokens = {"<|other|>"};
      EXPECT_EQ(TrainAndSave(*files, other, dir.File("other")).status().code(),
                absl::StatusCode::kInvalidArgument);
      EXPECT_EQ(files->Train(other).status().code(), absl::StatusCode::kInvalidArgument);
      other = Options(300, threads);
      other.pattern = Pattern::kCl100k;
      absl::Status refused = TrainAndSave(*files, other, dir.File("other")).status();
      EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
      EXPECT_NE(refused.message().find("pattern gpt2"), std::string::npos) << refused;
      EXPECT_FALSE(std::filesystem::exists(dir.File("other")));
    }
  }
}

TEST(ApiTest, ATokenizerFromAnyVocabSavesAndLoadsWithItsIds) {
  // Ids in an order that follows no layout: merges first, bytes reversed, special last.
  Vocab vocab = {"ab", "abc"};
  for (int b = 255; b >= 0; --b) vocab.push_back(std::string(1, static_cast<char>(b)));
  const Merges merges = {{"a", "b"}, {"ab", "c"}};
  absl::StatusOr<Tokenizer> t = Tokenizer::Create(vocab, merges, {"<s>"});
  ASSERT_TRUE(t.ok()) << t.status();
  const std::vector<TokenId> ids = t->Encode("abcab<s>");
  EXPECT_EQ(ids, (std::vector<TokenId>{1, 0, 258}));
  TempDir dir;
  ASSERT_TRUE(t->Save(dir.path()).ok());
  absl::StatusOr<Tokenizer> loaded = Tokenizer::Load(dir.path());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->Encode("abcab<s>"), ids);
}

TEST(ApiTest, BatchStreamAndFileEncodingEqualEncode) {
  TempDir dir;
  std::vector<std::string> docs;
  const std::vector<std::string> paths = WriteDocs(dir, &docs);
  absl::StatusOr<TrainResult> trained = Train(paths, Options(450));
  ASSERT_TRUE(trained.ok());
  absl::StatusOr<Tokenizer> t = Tokenizer::FromModel(trained->model);
  ASSERT_TRUE(t.ok());

  std::vector<absl::string_view> views(docs.begin(), docs.end());
  const std::vector<std::vector<TokenId>> batch = t->EncodeBatch(views, 2);
  std::vector<TokenId> all;
  for (size_t i = 0; i < docs.size(); ++i) {
    EXPECT_EQ(batch[i], t->Encode(docs[i]));
    all.insert(all.end(), batch[i].begin(), batch[i].end());
  }

  StreamEncoder stream(*t, 0);
  std::vector<TokenId> streamed;
  for (size_t at = 0; at < docs[0].size(); at += 7) stream.Push(docs[0].substr(at, 7), &streamed);
  stream.Finish(&streamed);
  EXPECT_EQ(streamed, batch[0]);

  EncodeFilesOptions options;
  options.chunk_bytes = 64;
  absl::StatusOr<EncodeFilesStats> stats = t->EncodeFile(paths, dir.File("ids.u16"), [&] {
    EncodeFilesOptions o = options;
    o.id_type = IdType::kUint16;
    return o;
  }());
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->tokens, all.size());
  std::vector<TokenId> from_sink;
  ASSERT_TRUE(t->EncodeFiles(paths, options, [&](absl::Span<const TokenId> ids) {
                 from_sink.insert(from_sink.end(), ids.begin(), ids.end());
                 return absl::OkStatus();
               }).ok());
  EXPECT_EQ(from_sink, all);

  ASSERT_TRUE(t->DecodeFile(dir.File("ids.u16"), {}, dir.File("back.txt")).ok());
  EXPECT_EQ(internal::testing::ReadFileOrDie(dir.File("back.txt")), docs[0] + docs[1] + docs[2]);
  // A file that cannot hold whole ids is refused before anything is written.
  internal::testing::WriteFile(dir.File("odd.u16"), "abc");
  EXPECT_EQ(t->DecodeFile(dir.File("odd.u16"), {IdType::kUint16}, dir.File("odd.txt")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(std::ifstream(dir.File("odd.txt")).good());
}

TEST(ApiTest, ACancelFlagStopsTrainingAndEncoding) {
  TempDir dir;
  std::vector<std::string> docs;
  const std::vector<std::string> paths = WriteDocs(dir, &docs);
  const std::atomic<bool> cancel{true};
  TrainOptions options = Options(400);
  options.cancel = &cancel;
  EXPECT_EQ(Train(paths, options).status().code(), absl::StatusCode::kCancelled);
  absl::StatusOr<CountFiles> counts = CountFiles::Count(paths, Options(400), dir.File("c.counts"));
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->Train(options).status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(CountFiles::Count(paths, options, dir.File("d.counts")).status().code(),
            absl::StatusCode::kCancelled);
  EXPECT_FALSE(std::filesystem::exists(dir.File("d.counts")));

  const Tokenizer t = TrainedOn(paths);
  EncodeFilesOptions encode;
  encode.cancel = &cancel;
  EXPECT_EQ(t.EncodeFile(paths, dir.File("ids"), encode).status().code(),
            absl::StatusCode::kCancelled);
  EXPECT_FALSE(std::ifstream(dir.File("ids")).good());
}

// An output that is a directory is refused before any text is encoded: renaming the finished
// file over it failed only once all the work was done.
TEST(ApiTest, AnOutputThatIsADirectoryIsRefusedBeforeTheWork) {
  TempDir dir;
  std::vector<std::string> docs;
  const std::vector<std::string> paths = WriteDocs(dir, &docs);
  const Tokenizer t = TrainedOn(paths);
  std::filesystem::create_directory(dir.File("out"));
  EncodeFilesOptions options;
  options.chunk_bytes = 64;
  int chunks = 0;
  options.progress = [&](uint64_t, uint64_t) { ++chunks; };
  const absl::Status s = t.EncodeFile(paths, dir.File("out"), options).status();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir.File("out")), absl::string_view::npos) << s;
  EXPECT_EQ(chunks, 0);
  EXPECT_TRUE(std::filesystem::is_empty(dir.File("out")));
}

// A symbolic link as the output (to a file on scratch space, say) is written through: the file
// it names gets the bytes and the link stays. Renaming over the link would leave that file
// stale, and the bytes beside the link.
TEST(ApiTest, ALinkedOutputIsWrittenThrough) {
  TempDir dir;
  std::vector<std::string> docs;
  const std::vector<std::string> paths = WriteDocs(dir, &docs);
  const Tokenizer t = TrainedOn(paths);
  ASSERT_TRUE(t.EncodeFile(paths, dir.File("plain.bin")).ok());
  std::filesystem::create_directory(dir.File("scratch"));
  internal::testing::WriteFile(dir.File("scratch/ids.bin"), "old");
  std::filesystem::create_symlink("scratch/ids.bin", dir.File("ids.bin"));
  std::filesystem::create_symlink("scratch/stats.json", dir.File("stats.json"));  // dangling

  ASSERT_TRUE(t.EncodeFile(paths, dir.File("ids.bin")).ok());
  ASSERT_TRUE(WriteFileWhole(dir.File("stats.json"), "{}").ok());
  EXPECT_TRUE(std::filesystem::is_symlink(dir.File("ids.bin")));
  EXPECT_TRUE(std::filesystem::is_symlink(dir.File("stats.json")));
  EXPECT_EQ(internal::testing::ReadFileOrDie(dir.File("scratch/ids.bin")),
            internal::testing::ReadFileOrDie(dir.File("plain.bin")));
  EXPECT_EQ(internal::testing::ReadFileOrDie(dir.File("scratch/stats.json")), "{}");
  // The sidecar sits beside the name the ids were given, where DecodeFile looks for it.
  EXPECT_TRUE(std::filesystem::exists(dir.File("ids.bin.json")));
  std::string decoded;
  ASSERT_TRUE(t.DecodeFile(dir.File("ids.bin"), {}, [&](absl::string_view bytes) {
                 decoded.append(bytes.data(), bytes.size());
                 return absl::OkStatus();
               }).ok());
  EXPECT_EQ(decoded, docs[0] + docs[1] + docs[2]);
}

// A file written over keeps its mode, and a new one gets what the umask allows, as the shell's
// `>` would give: a private corpus's ids stay private (the files were made 0644 whatever the
// umask, and over a file of mode 0600).
TEST(ApiTest, OutputsKeepTheModeOfTheFileTheyReplaceOrFollowTheUmask) {
  TempDir dir;
  std::vector<std::string> docs;
  const std::vector<std::string> paths = WriteDocs(dir, &docs);
  const Tokenizer t = TrainedOn(paths);
  auto mode = [&](const std::string& name) {
    struct stat st;
    return stat(dir.File(name).c_str(), &st) == 0 ? st.st_mode & 0777 : 0;
  };
  internal::testing::WriteFile(dir.File("private.bin"), "old");
  chmod(dir.File("private.bin").c_str(), 0600);
  ASSERT_TRUE(t.EncodeFile(paths, dir.File("private.bin")).ok());
  EXPECT_EQ(mode("private.bin"), 0600u);

  const mode_t old_mask = umask(077);
  const absl::Status encoded = t.EncodeFile(paths, dir.File("new.bin")).status();
  const absl::Status saved = SaveTokenizer(Train(paths, Options(300))->model, dir.File("tok"));
  umask(022);
  const absl::Status stats = WriteFileWhole(dir.File("stats.json"), "{}");
  umask(old_mask);
  ASSERT_TRUE(encoded.ok() && saved.ok() && stats.ok());
  EXPECT_EQ(mode("new.bin"), 0600u);
  EXPECT_EQ(mode("new.bin.json"), 0600u);
  EXPECT_EQ(mode("tok/vocab.json"), 0600u);
  EXPECT_EQ(mode("stats.json"), 0644u);
}

// A pipe (or /dev/stdout, /dev/null) cannot be replaced by a renamed file: it gets the ids as
// they come, and there is no file for a sidecar to sit beside. Replacing it would have left a
// reader waiting for ever, and as root would turn /dev/null into a file.
TEST(ApiTest, APipeGetsTheIdsAsTheyCome) {
  TempDir dir;
  std::vector<std::string> docs;
  const std::vector<std::string> paths = WriteDocs(dir, &docs);
  const Tokenizer t = TrainedOn(paths);
  ASSERT_TRUE(t.EncodeFile(paths, dir.File("plain.bin")).ok());
  const std::string fifo = dir.File("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Opened without waiting for a writer, so that the test fails, not hangs, if none comes.
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  std::atomic<bool> written{false};
  std::string received;
  std::thread drain([&] {
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = read(reader, buf, sizeof buf);
      if (n > 0) {
        received.append(buf, static_cast<size_t>(n));
      } else if (n == 0 && written.load()) {
        break;  // the writer is done and gone
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
  });
  absl::StatusOr<EncodeFilesStats> stats = t.EncodeFile(paths, fifo);
  written = true;
  drain.join();
  close(reader);
  ASSERT_TRUE(stats.ok()) << stats.status();
  struct stat st;
  ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(received, internal::testing::ReadFileOrDie(dir.File("plain.bin")));
  EXPECT_FALSE(std::filesystem::exists(fifo + ".json"));
}

// "\xC4\xA0" (Ġ) is how tokenizer.json spells the ordinary token " "; a special token with that
// text cannot be a second key. The error names it, and no file of the set is left.
TEST(ApiTest, ASpecialTokenSpelledAsAnOrdinaryTokenIsNotSaved) {
  TempDir dir;
  internal::testing::WriteFile(dir.File("doc.txt"), "a b a b \xC4\xA0 a b");
  TrainOptions options = Options(260);
  options.special_tokens = {"\xC4\xA0"};
  absl::StatusOr<TrainResult> trained = Train({dir.File("doc.txt")}, options);
  ASSERT_TRUE(trained.ok()) << trained.status();
  const absl::Status saved = SaveTokenizer(trained->model, dir.File("out"));
  EXPECT_EQ(saved.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(saved.message().find("special token \"\xC4\xA0\" is also an ordinary token's visible"),
            std::string::npos)
      << saved;
  EXPECT_FALSE(std::ifstream(dir.File("out/vocab.json")).good());
  EXPECT_FALSE(std::ifstream(dir.File("out/tokenizer.json")).good());
}

// One table of names: the short names and tiktoken's, in both parsers; the message lists them.
TEST(ApiTest, PatternNamesAreOneList) {
  for (const auto& [name, want] :
       std::vector<std::pair<std::string, Pattern>>{{"gpt2", Pattern::kGpt2},
                                                    {"cl100k", Pattern::kCl100k},
                                                    {"cl100k_base", Pattern::kCl100k},
                                                    {"o200k_base", Pattern::kO200k}}) {
    std::string custom = "x";
    EXPECT_EQ(ParsePatternOrRegex(name, &custom).value(), want) << name;
    EXPECT_EQ(custom, "");
    EXPECT_EQ(ParsePattern(name).value(), want) << name;
  }
  EXPECT_EQ(PatternName(Pattern::kO200k), "o200k");
  std::string custom;
  absl::StatusOr<Pattern> bad = ParsePatternOrRegex("p50k", &custom);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("one of gpt2, cl100k or o200k, or a regex"),
            std::string::npos)
      << bad.status();
  EXPECT_EQ(ParsePatternOrRegex(" ?\\p{L}+", &custom).value(), Pattern::kCustom);
  EXPECT_EQ(custom, " ?\\p{L}+");
}

// A mapped input cut short while it is encoded reads as zeros past its new end: for JSON Lines
// those are no JSON, but the error says what happened to the file, as for text.
TEST(ApiTest, AnInputTruncatedWhileEncodedSaysSo) {
  TempDir dir;
  std::vector<std::string> docs;
  const Tokenizer t = TrainedOn(WriteDocs(dir, &docs));
  std::string text, jsonl;
  for (int i = 0; i < 20000; ++i) {
    const std::string doc = "record " + std::to_string(i) + " of many words";
    text += doc + "\n";
    jsonl += "{\"text\": \"" + doc + "\"}\n";
  }
  internal::testing::WriteFile(dir.File("docs.txt"), text);
  internal::testing::WriteFile(dir.File("docs.jsonl"), jsonl);
  for (const char* name : {"docs.txt", "docs.jsonl"}) {
    const std::string path = dir.File(name);
    EncodeFilesOptions options;
    options.chunk_bytes = 4096;
    // One thread: with two, both may read the lost pages while the SIGBUS guard maps zeros
    // there, which ThreadSanitizer reports as a race with the guard's mmap (it is benign: a
    // reader sees the old page, faults, or sees the zeros).
    options.threads = 1;
    options.progress = [&](uint64_t, uint64_t) { ASSERT_EQ(truncate(path.c_str(), 5000), 0); };
    const absl::Status s = t.EncodeFile({path}, dir.File("ids"), options).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
    EXPECT_NE(s.message().find(path + " changed size while it was read"), absl::string_view::npos)
        << s;
    EXPECT_FALSE(std::filesystem::exists(dir.File("ids")));
  }
}

TEST(ApiTest, ErrorsSayWhatAndWhere) {
  TempDir dir;
  const std::string missing = dir.File("missing.txt");
  absl::StatusOr<TrainResult> r = Train({missing}, Options(300));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find(missing), absl::string_view::npos);
  EXPECT_EQ(Tokenizer::Load(missing).status().code(), absl::StatusCode::kNotFound);

  internal::testing::WriteFile(dir.File("bad.txt"), "ok\xff");
  r = Train({dir.File("bad.txt")}, Options(300));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("byte offset 2"), absl::string_view::npos);
  EXPECT_EQ(Train({dir.File("bad.txt")}, Options(10)).status().code(),
            absl::StatusCode::kInvalidArgument);

  internal::testing::WriteFile(dir.File("merges.txt"), "a b\nnot-a-merge\n");
  internal::testing::WriteFile(dir.File("vocab.json"), "{}");
  absl::Status s = Tokenizer::Load(dir.path()).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParsePattern("nope").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseIdType("int8").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bpeforge
