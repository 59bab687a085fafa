// Helpers shared by the tests: temporary directories, reference data, running the CLI.
#ifndef BPEFORGE_TESTS_TEST_UTIL_H_
#define BPEFORGE_TESTS_TEST_UTIL_H_

#include <optional>
#include <string>

namespace bpeforge::internal::testing {

// ../shared/fixtures beside the source tree (or $BPEFORGE_FIXTURES), if it exists.
// Conformance tests GTEST_SKIP() when this is empty.
std::optional<std::string> FixturesDir();

// A fresh empty directory, removed when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void WriteFile(const std::string& path, const std::string& contents);
std::string ReadFileOrDie(const std::string& path);

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};
// Runs the built `bpeforge` executable with `args` (a shell-quoted argument string), its
// standard input read from `stdin_path`.
CommandResult RunCli(const std::string& args, const std::string& stdin_path = "/dev/null");

// A failed command as users should see one: a non-zero exit and exactly one line on stderr,
// which contains `needle`.
void ExpectCleanFailure(const CommandResult& r, const std::string& needle);

bool Exists(const std::string& path);

}  // namespace bpeforge::internal::testing

#endif  // BPEFORGE_TESTS_TEST_UTIL_H_
