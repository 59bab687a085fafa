// The public DocumentCounter: documents handed over in batches train (and count) as a file of
// the same documents joined by a special token does, for any batching and number of threads;
// bad documents, cancellation and misuse fail with a clear status.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bpeforge/bpeforge.h"
#include "tests/test_util.h"
#include "tests/text_gen.h"

namespace bpeforge {
namespace {

using internal::testing::TempDir;

const std::vector<std::string> kSpecials = {"<|endoftext|>"};

TrainOptions Options(size_t vocab_size, int threads) {
  TrainOptions options;
  options.vocab_size = vocab_size;
  options.special_tokens = kSpecials;
  options.threads = threads;
  return options;
}

// Seeded documents with special tokens inside some, a few tiny ones, and an empty one.
std::vector<std::string> Documents() {
  std::vector<std::string> docs;
  for (int i = 0; i < 12; ++i) {
    internal::testing::TextGenOptions gen;
    gen.fragments = 40 + 10 * i;
    gen.special_tokens = kSpecials;
    docs.push_back(internal::testing::RandomText(700 + i, gen));
  }
  docs.insert(docs.begin() + 3, "");
  docs.insert(docs.begin() + 5, "a");
  docs.insert(docs.begin() + 7, " the the the");
  return docs;
}

// Adds `docs` to `counter` in batches of `batch` documents.
absl::Status AddInBatches(DocumentCounter& counter, const std::vector<std::string>& docs,
                          size_t batch) {
  for (size_t i = 0; i < docs.size(); i += batch) {
    std::vector<absl::string_view> views;
    for (size_t j = i; j < std::min(docs.size(), i + batch); ++j) views.push_back(docs[j]);
    if (absl::Status s = counter.Add(views); !s.ok()) return s;
  }
  return absl::OkStatus();
}

TEST(DocumentCounterTest, DocumentsTrainAsTheFileOfThemJoinedBySpecialTokens) {
  TempDir dir;
  const std::vector<std::string> docs = Documents();
  const std::string joined = dir.File("joined.txt");
  internal::testing::WriteFile(joined, absl::StrJoin(docs, kSpecials[0]));
  const absl::StatusOr<TrainResult> want = Train({joined}, Options(600, 1));
  ASSERT_TRUE(want.ok()) << want.status();
  for (int threads : {1, 2}) {
    for (size_t batch : {size_t{1}, size_t{4}, docs.size()}) {
      SCOPED_TRACE(absl::StrCat("threads ", threads, ", batches of ", batch));
      absl::StatusOr<DocumentCounter> counter = DocumentCounter::Start(Options(600, threads));
      ASSERT_TRUE(counter.ok()) << counter.status();
      ASSERT_TRUE(AddInBatches(*counter, docs, batch).ok());
      absl::StatusOr<TrainResult> got = counter->Train();
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ(got->model.merges, want->model.merges);
      EXPECT_EQ(got->model.vocab, want->model.vocab);
      EXPECT_EQ(got->stats.input.documents, docs.size());
      EXPECT_EQ(got->stats.pretokens, want->stats.pretokens);
    }
  }
}

TEST(DocumentCounterTest, SavedCountsTrainAsTheDocuments) {
  TempDir dir;
  const std::vector<std::string> docs = Documents();
  const std::string joined = dir.File("joined.txt");
  internal::testing::WriteFile(joined, absl::StrJoin(docs, kSpecials[0]));
  TrainOptions counting = Options(0, 2);
  absl::StatusOr<DocumentCounter> counter = DocumentCounter::Start(counting);
  ASSERT_TRUE(counter.ok()) << counter.status();
  ASSERT_TRUE(AddInBatches(*counter, docs, 5).ok());
  absl::StatusOr<CountedText> saved = counter->Save(dir.File("docs.counts"));
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(saved->special_tokens, kSpecials);

  // The counts of the joined text (whose bytes also hold the separators): the same pre-tokens,
  // and so the same merges.
  absl::StatusOr<CountFiles> from_file =
      CountFiles::Count({joined}, counting, dir.File("joined.counts"));
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  EXPECT_EQ(saved->distinct, from_file->counted().distinct);
  EXPECT_EQ(saved->pretokens, from_file->counted().pretokens);
  absl::StatusOr<CountFiles> opened = CountFiles::Open({dir.File("docs.counts")});
  ASSERT_TRUE(opened.ok()) << opened.status();
  absl::StatusOr<TrainResult> from_docs = opened->Train(Options(600, 2));
  ASSERT_TRUE(from_docs.ok()) << from_docs.status();
  absl::StatusOr<TrainResult> from_text = from_file->Train(Options(600, 2));
  ASSERT_TRUE(from_text.ok()) << from_text.status();
  EXPECT_EQ(from_docs->model.merges, from_text->model.merges);
  EXPECT_EQ(from_docs->model.merge_counts, from_text->model.merge_counts);
  // Once trained from or saved, the counter takes nothing more.
  EXPECT_EQ(counter->Train().status().code(), absl::StatusCode::kFailedPrecondition);
  const std::vector<absl::string_view> more = {"more"};
  EXPECT_EQ(counter->Add(more).code(), absl::StatusCode::kFailedPrecondition);
}

TEST(DocumentCounterTest, InvalidUtf8NamesTheDocumentAndTheByteOffset) {
  absl::StatusOr<DocumentCounter> counter = DocumentCounter::Start(Options(300, 2));
  ASSERT_TRUE(counter.ok()) << counter.status();
  const std::vector<absl::string_view> first = {"fine", "also fine"};
  const std::vector<absl::string_view> second = {"good", "bad \xff here"};
  ASSERT_TRUE(counter->Add(first).ok());
  absl::Status added = counter->Add(second);  // may fail already, if counted by then
  absl::Status trained = counter->Train().status();
  const absl::Status& failed = added.ok() ? trained : added;
  EXPECT_EQ(failed.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(failed.message(), "document 3: invalid UTF-8 at byte offset 4");
}

TEST(DocumentCounterTest, ACancelFlagStopsTheCounting) {
  std::atomic<bool> cancel{false};
  TrainOptions options = Options(300, 2);
  options.cancel = &cancel;
  absl::StatusOr<DocumentCounter> counter = DocumentCounter::Start(options);
  ASSERT_TRUE(counter.ok()) << counter.status();
  const std::vector<absl::string_view> docs = {"some text", "more text"};
  ASSERT_TRUE(counter->Add(docs).ok());
  cancel = true;
  EXPECT_EQ(counter->Add(docs).code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(counter->Train().status().code(), absl::StatusCode::kCancelled);
}

TEST(DocumentCounterTest, BadOptionsFailBeforeAnyDocument) {
  EXPECT_EQ(DocumentCounter::Start(Options(100, 2)).status().code(),
            absl::StatusCode::kInvalidArgument);  // below 256 + the special token
  TrainOptions options = Options(300, 2);
  options.pattern = Pattern::kCustom;
  options.custom_pattern = "(unclosed";
  EXPECT_EQ(DocumentCounter::Start(options).status().code(), absl::StatusCode::kInvalidArgument);
  options = Options(300, 2);
  options.special_tokens = {""};
  EXPECT_EQ(DocumentCounter::Start(options).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(DocumentCounterTest, ProgressCountsTheDocuments) {
  std::atomic<uint64_t> reported{0};
  TrainOptions options = Options(300, 2);
  options.progress_figures = [&](const ProgressFigures& figures) {
    if (std::string(figures.phase) == "counting") reported = figures.documents;
  };
  absl::StatusOr<DocumentCounter> counter = DocumentCounter::Start(options);
  ASSERT_TRUE(counter.ok()) << counter.status();
  const std::vector<std::string> docs = Documents();
  ASSERT_TRUE(AddInBatches(*counter, docs, 1).ok());
  ASSERT_TRUE(counter->Train().ok());
  EXPECT_EQ(counter->documents(), docs.size());
  EXPECT_GT(reported.load(), 0u);
  EXPECT_LE(reported.load(), docs.size());
}

}  // namespace
}  // namespace bpeforge
