// JSON Lines inputs train and encode exactly as the plain text of their documents with a
// special token between them, compressed or not, for any chunk size and thread count; bad
// records are errors naming the file and line (or are counted and skipped); folders and globs
// expand to their files in a fixed order.
#include "input/jsonl.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "input/input_paths.h"
#include "parallel/train.h"
#include "tests/compression.h"
#include "tests/test_util.h"
#include "tests/text_gen.h"

namespace bpeforge::internal {
namespace {

using testing::RunCli;
using testing::TempDir;

constexpr char kEot[] = "<|endoftext|>";

// Documents of random text (several scripts, white-space edge cases), some empty.
std::vector<std::string> Documents(size_t n) {
  std::vector<std::string> docs;
  for (size_t i = 0; i < n; ++i) {
    testing::TextGenOptions gen;
    gen.fragments = i % 7 == 3 ? 0 : 1 + i % 40;
    docs.push_back(testing::RandomText(1000 + i, gen));
  }
  docs.push_back(std::string(300000, 'a') + " long");  // one record longer than a read block
  return docs;
}

std::string Joined(const std::vector<std::string>& docs, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < docs.size(); ++i) out += (i > 0 ? separator : "") + docs[i];
  return out;
}

// One record per line; other fields around the text, as in real dumps.
std::string Jsonl(const std::vector<std::string>& docs, const std::string& field = "text") {
  std::string out;
  for (size_t i = 0; i < docs.size(); ++i) {
    nlohmann::ordered_json j;
    j["id"] = i;
    j[field] = docs[i];
    j["meta"] = {{"source", "test"}};
    out += j.dump() + (i % 5 == 0 ? "\r\n" : "\n");
    if (i % 9 == 0) out += "\n";  // blank lines are skipped
  }
  return out;
}

absl::StatusOr<TrainJobResult> TrainOn(const std::vector<std::string>& inputs, size_t chunk,
                                       int threads, JsonlOptions jsonl = {},
                                       std::vector<std::string> specials = {kEot}) {
  TrainJob options;
  options.inputs = inputs;
  options.trainer.vocab_size = 800;
  options.trainer.special_tokens = std::move(specials);
  options.chunk_bytes = chunk;
  options.threads = threads;
  options.jsonl = std::move(jsonl);
  return RunTrainJob(options);
}

TEST(JsonlTest, TrainsAsThePlainTextOfItsDocuments) {
  TempDir dir;
  const std::vector<std::string> docs = Documents(400);
  testing::WriteFile(dir.File("plain.txt"), Joined(docs, kEot));
  const std::string jsonl = Jsonl(docs);
  testing::WriteFile(dir.File("docs.jsonl"), jsonl);
  testing::WriteFile(dir.File("docs.jsonl.zst"), testing::Zstd(jsonl));
  testing::WriteFile(dir.File("docs.json.gz"), testing::Gzip(jsonl));
  testing::WriteFile(dir.File("docs.data"), jsonl);  // JSON Lines only when told
  absl::StatusOr<TrainJobResult> want = TrainOn({dir.File("plain.txt")}, 4 << 20, 2);
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_GT(want->trained.merges.size(), 400u);
  for (const char* name : {"docs.jsonl", "docs.jsonl.zst", "docs.json.gz"}) {
    for (size_t chunk : {size_t{1}, size_t{777}, size_t{4} << 20}) {
      for (int threads : {1, 2}) {
        absl::StatusOr<TrainJobResult> got = TrainOn({dir.File(name)}, chunk, threads);
        ASSERT_TRUE(got.ok()) << name << ": " << got.status();
        EXPECT_EQ(got->trained.merges, want->trained.merges) << name << " chunk " << chunk;
        EXPECT_EQ(got->trained.vocab, want->trained.vocab) << name;
      }
    }
  }
  absl::StatusOr<TrainJobResult> told = TrainOn({dir.File("docs.data")}, 1000, 2, {"text", false});
  ASSERT_TRUE(told.ok()) << told.status();
  EXPECT_EQ(told->trained.merges, want->trained.merges);
  // Read as text, the same file is not the documents.
  absl::StatusOr<TrainJobResult> as_text = TrainOn({dir.File("docs.data")}, 1000, 2);
  ASSERT_TRUE(as_text.ok()) << as_text.status();
  EXPECT_NE(as_text->trained.merges, want->trained.merges);
}

// Without any special token, documents still never merge across records: the result is that
// of one file per document.
TEST(JsonlTest, RecordsAreSeparateDocumentsWithoutSpecialTokens) {
  TempDir dir;
  std::vector<std::string> docs = {"hello wor", "ld again", "abc", "", "abcabc d", "ef gh ij"};
  for (int i = 0; i < 50; ++i) docs.push_back("low lower newest widest " + std::to_string(i));
  std::vector<std::string> files;
  for (size_t i = 0; i < docs.size(); ++i) {
    files.push_back(dir.File("doc" + std::to_string(i) + ".txt"));
    testing::WriteFile(files.back(), docs[i]);
  }
  testing::WriteFile(dir.File("docs.jsonl"), Jsonl(docs));
  absl::StatusOr<TrainJobResult> want = TrainOn(files, 4 << 20, 2, {}, {});
  absl::StatusOr<TrainJobResult> got = TrainOn({dir.File("docs.jsonl")}, 5, 2, {}, {});
  ASSERT_TRUE(want.ok() && got.ok());
  EXPECT_EQ(got->trained.merges, want->trained.merges);
  absl::StatusOr<TrainJobResult> glued = TrainOn({dir.File("doc0.txt")}, 4 << 20, 2, {}, {});
  testing::WriteFile(dir.File("glued.txt"), Joined(docs, ""));
  glued = TrainOn({dir.File("glued.txt")}, 4 << 20, 2, {}, {});
  ASSERT_TRUE(glued.ok());
  EXPECT_NE(glued->trained.merges, want->trained.merges);  // "wor"+"ld" would be "world"
  EXPECT_EQ(got->stats.input.documents, docs.size());
  EXPECT_EQ(got->stats.bytes, Joined(docs, "").size());
}

struct BadRecord {
  std::string line;
  std::string message;
};

TEST(JsonlTest, BadRecordsNameTheFileAndLineOrAreSkipped) {
  const std::vector<BadRecord> cases = {
      {R"({"text": "a)", "not valid JSON"},
      {R"({"text": 5})", "field \"text\" is not a string"},
      {R"({"body": "x"})", "field \"text\" is missing"},
      {R"(["text"])", "a JSON array, not an object"},
      {R"([{"text": "in an array"}, {"text": "x"}])", "a JSON array, not an object"},
      {R"(  {)", "only \"{\": JSON Lines hold one whole object per line"},
      {R"("text")", "the line is JSON but not an object"},
      {R"({"text": "lone \ud800 surrogate"})", "lone surrogate"},
      {"{\"text\": \"bad \xff byte\"}", "invalid UTF-8"},
      {R"({"text": "ok"} trailing)", "not valid JSON"},
      {"\xEF\xBB\xBF{\"text\": \"after a byte order mark\"}", "byte order mark (U+FEFF)"},
  };
  for (const BadRecord& c : cases) {
    TempDir dir;
    const std::string jsonl =
        "{\"text\": \"first\"}\n\n{\"text\": \"second\"}\n" + c.line + "\n{\"text\": \"after\"}\n";
    testing::WriteFile(dir.File("bad.jsonl"), jsonl);
    testing::WriteFile(dir.File("bad.jsonl.xz"), testing::Xz(jsonl));
    for (const char* name : {"bad.jsonl", "bad.jsonl.xz"}) {
      absl::StatusOr<TrainJobResult> r = TrainOn({dir.File(name)}, 3, 2);
      ASSERT_FALSE(r.ok()) << c.line;
      EXPECT_EQ(r.status().message().find(dir.File(name) + ":4: "), 0u) << r.status();
      EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status();
      r = TrainOn({dir.File(name)}, 3, 2, {"", true});
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_EQ(r->stats.input.skipped_records, 1u);
      EXPECT_EQ(r->stats.input.documents, 3u);
    }
    // The command line says the same, and writes nothing; so does encoding.
    testing::ExpectCleanFailure(
        RunCli("train " + dir.File("bad.jsonl") + " --vocab-size 300 --out " + dir.File("o")),
        dir.File("bad.jsonl") + ":4: ");
    EXPECT_FALSE(testing::Exists(dir.File("o")));
    // The summary counts the documents kept, even when they are as many as the files.
    testing::WriteFile(dir.File("one.jsonl"), "{\"text\": \"kept\"}\n" + c.line + "\n");
    auto skipping = RunCli("train " + dir.File("one.jsonl") +
                           " --skip-bad-records --vocab-size 300 --out " + dir.File("o"));
    ASSERT_EQ(skipping.exit_code, 0) << skipping.err;
    EXPECT_NE(skipping.out.find("in 1 file(s), 1 documents, 1 bad records skipped"),
              std::string::npos)
        << skipping.out;
    testing::WriteFile(dir.File("good.jsonl"), "{\"text\": \"first second\"}\n");
    ASSERT_EQ(RunCli("train " + dir.File("good.jsonl") + " --vocab-size 260 --quiet --out " +
                     dir.File("tok"))
                  .exit_code,
              0);
    for (const char* name : {"bad.jsonl", "bad.jsonl.xz"}) {
      testing::ExpectCleanFailure(
          RunCli("encode " + dir.File(name) + " --chunk-bytes 3 " + "--tokenizer " +
                 dir.File("tok") + " --output " + dir.File("o.ids")),
          dir.File(name) + ":4: ");
      EXPECT_FALSE(testing::Exists(dir.File("o.ids")));
    }
  }
}

// Encoding writes one id stream: the documents' ids with the separator between records, the
// ids of the plain text joined by it.
TEST(JsonlTest, EncodesAsThePlainTextWithTheSeparatorBetweenRecords) {
  TempDir dir;
  const std::vector<std::string> docs = Documents(150);
  testing::WriteFile(dir.File("plain.txt"), Joined(docs, kEot));
  testing::WriteFile(dir.File("docs.jsonl"), Jsonl(docs, "content"));  // mapped
  testing::WriteFile(dir.File("docs.jsonl.zst"), testing::Zstd(Jsonl(docs, "content")));
  testing::WriteFile(dir.File("one.txt"), docs[0]);
  testing::WriteFile(dir.File("two.txt"), docs[1]);
  ASSERT_EQ(RunCli("train " + dir.File("plain.txt") + " --vocab-size 600 --quiet " +
                   "--special-token '<|endoftext|>' --out " + dir.File("tok"))
                .exit_code,
            0);
  const std::string encode = "encode --quiet --tokenizer " + dir.File("tok") + " --output ";
  ASSERT_EQ(RunCli(encode + dir.File("plain.ids ") + dir.File("plain.txt")).exit_code, 0);
  for (const char* name : {"docs.jsonl", "docs.jsonl.zst"}) {
    for (const std::string chunk : {"1", "1000", "1048576"}) {
      auto r =
          RunCli(encode + dir.File("docs.ids ") + dir.File(name) +
                 " --jsonl-field content --separator-token '<|endoftext|>' --chunk-bytes " + chunk);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(testing::ReadFileOrDie(dir.File("docs.ids")),
                testing::ReadFileOrDie(dir.File("plain.ids")))
          << name << " chunk " << chunk;
    }
  }
  // Between files too; and a separator that is no special token is refused.
  testing::WriteFile(dir.File("pair.txt"), docs[0] + kEot + docs[1]);
  ASSERT_EQ(RunCli(encode + dir.File("pair.ids ") + dir.File("pair.txt")).exit_code, 0);
  ASSERT_EQ(RunCli(encode + dir.File("two.ids ") + dir.File("one.txt ") + dir.File("two.txt") +
                   " --separator-token '<|endoftext|>'")
                .exit_code,
            0);
  EXPECT_EQ(testing::ReadFileOrDie(dir.File("two.ids")),
            testing::ReadFileOrDie(dir.File("pair.ids")));
  testing::ExpectCleanFailure(
      RunCli(encode + dir.File("x.ids ") + dir.File("one.txt") + " --separator-token '<pad>'"),
      "not a special token");
  EXPECT_FALSE(testing::Exists(dir.File("x.ids")));
}

// Mapped files are read in place, so a record may end where readable memory ends. Records
// are parsed there as anywhere, though simdjson reads up to 64 bytes past a record: here a
// page that may not be read follows them.
TEST(JsonlTest, RecordsAtTheEndOfReadableMemoryAreParsed) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  char* mem = static_cast<char*>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(mem, MAP_FAILED);
  ASSERT_EQ(mprotect(mem + page, page, PROT_NONE), 0);
  JsonlParser parser("text");
  for (const std::string& tail :
       {std::string("{\"text\": \"") + std::string(200, 'x') + "\"}",
        std::string("{\"n\": 12345678901234567890, \"text\": \"y\\u00e9\"}\n"),
        std::string("{\"text\": \"a\"}\n{\"text\": \"b\", \"pi\": 3.14159265358979}")}) {
    std::vector<std::string> want, got;
    uint64_t skipped = 0;
    const std::string padded = tail + std::string(64, ' ');
    ASSERT_FALSE(parser
                     .ForEachDocument(absl::string_view(padded.data(), tail.size()), 64, 1, false,
                                      &skipped,
                                      [&](absl::string_view doc, uint64_t) {
                                        want.emplace_back(doc);
                                        return true;
                                      })
                     .has_value());
    char* at = mem + page - tail.size();
    memcpy(at, tail.data(), tail.size());
    ASSERT_FALSE(parser
                     .ForEachDocument(absl::string_view(at, tail.size()), 0, 1, false, &skipped,
                                      [&](absl::string_view doc, uint64_t) {
                                        got.emplace_back(doc);
                                        return true;
                                      })
                     .has_value());
    EXPECT_EQ(got, want);
    EXPECT_FALSE(got.empty());
  }
  munmap(mem, 2 * page);
}

TEST(JsonlTest, NamesSayJsonLines) {
  EXPECT_TRUE(HasJsonlName("a/b.jsonl"));
  EXPECT_TRUE(HasJsonlName("b.jsonl.zst"));
  EXPECT_TRUE(HasJsonlName("b.json.gz"));
  EXPECT_TRUE(HasJsonlName("b.ndjson.xz"));
  EXPECT_FALSE(HasJsonlName("b.txt"));
  EXPECT_FALSE(HasJsonlName("b.txt.gz"));
  EXPECT_FALSE(HasJsonlName("jsonl"));
  EXPECT_FALSE(HasJsonlName("-"));
}

TEST(InputPathsTest, FoldersAndGlobsExpandSorted) {
  TempDir dir;
  for (const char* f : {"c/2.jsonl.zst", "c/1.jsonl.zst", "c/sub/0.jsonl.zst", "c/notes.md",
                        "c/.hidden.jsonl.zst", "c/.git/x.jsonl.zst", "b.txt", "a.txt"}) {
    const std::string path = dir.File(f);
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    testing::WriteFile(path, "x");
  }
  std::filesystem::create_directories(dir.File("empty"));
  auto files = ExpandInputs({dir.File("c")}, {"*.jsonl.zst"});
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ(*files, (std::vector<std::string>{dir.File("c/1.jsonl.zst"), dir.File("c/2.jsonl.zst"),
                                              dir.File("c/sub/0.jsonl.zst")}));
  files = ExpandInputs({dir.File("c")}, {});
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(files->size(), 4u);  // with notes.md, without the hidden ones
  files = ExpandInputs({dir.File("*.txt"), "-", dir.File("c/notes.md")}, {"*.zst"});
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(*files, (std::vector<std::string>{dir.File("a.txt"), dir.File("b.txt"), "-",
                                              dir.File("c/notes.md")}));
  files = ExpandInputs({dir.File("empty")}, {});
  ASSERT_FALSE(files.ok());
  EXPECT_NE(files.status().message().find("holds no input file"), std::string::npos);
  files = ExpandInputs({dir.File("c")}, {"*.parquet"});
  ASSERT_FALSE(files.ok());
  EXPECT_NE(files.status().message().find("matching --include *.parquet"), std::string::npos);
  files = ExpandInputs({dir.File("*.csv")}, {});
  ASSERT_FALSE(files.ok());
  EXPECT_NE(files.status().message().find("no file matches"), std::string::npos);
  // A missing file passes through, for opening it to say so.
  files = ExpandInputs({dir.File("missing.txt")}, {});
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(*files, std::vector<std::string>{dir.File("missing.txt")});
}

// Training a folder equals training its files listed by hand, in sorted order.
TEST(InputPathsTest, TrainingAFolderEqualsItsFiles) {
  TempDir dir;
  const std::vector<std::string> docs = Documents(60);
  std::filesystem::create_directories(dir.File("corpus/part"));
  testing::WriteFile(dir.File("corpus/a.txt"), Joined({docs.begin(), docs.begin() + 20}, kEot));
  testing::WriteFile(dir.File("corpus/part/b.jsonl.gz"),
                     testing::Gzip(Jsonl({docs.begin() + 20, docs.end()})));
  testing::WriteFile(dir.File("corpus/README"), "not a shard");
  const std::string flags = " --vocab-size 500 --special-token '<|endoftext|>' --quiet --out ";
  auto r = RunCli("train " + dir.File("corpus") + " --include '*.txt' --include '*.jsonl.gz'" +
                  flags + dir.File("a"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunCli("train " + dir.File("corpus/a.txt") + " " + dir.File("corpus/part/b.jsonl.gz") +
             flags + dir.File("b"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::ReadFileOrDie(dir.File("a/merges.txt")),
            testing::ReadFileOrDie(dir.File("b/merges.txt")));
  // The summary counts the documents and the stored and decompressed bytes.
  r = RunCli("count " + dir.File("corpus/part") + " --out " + dir.File("c.counts"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("in 1 file(s) ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" decompressed), 41 documents"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace bpeforge::internal
