#include "tests/test_util.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace bpeforge::internal::testing {

std::optional<std::string> FixturesDir() {
  std::string dir;
  if (const char* env = std::getenv("BPEFORGE_FIXTURES"); env != nullptr && *env != '\0') {
    dir = env;
  } else {
    dir = std::string(BPEFORGE_SOURCE_DIR) + "/../shared/fixtures";
  }
  if (!std::filesystem::is_directory(dir)) return std::nullopt;
  return dir;
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "bpeforge-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ec);
  std::filesystem::remove_all(path_, ec);
}

void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary);
  out << contents;
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CommandResult RunCli(const std::string& args, const std::string& stdin_path) {
  TempDir dir;
  const std::string cmd = std::string("'") + BPEFORGE_CLI_PATH + "' " + args + " >'" +
                          dir.File("out") + "' 2>'" + dir.File("err") + "' <'" + stdin_path + "'";
  CommandResult r;
  int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFileOrDie(dir.File("out"));
  r.err = ReadFileOrDie(dir.File("err"));
  return r;
}

void ExpectCleanFailure(const CommandResult& r, const std::string& needle) {
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

bool Exists(const std::string& path) { return std::filesystem::exists(path); }

}  // namespace bpeforge::internal::testing
