// Stopping and destinations: SIGINT and SIGTERM end a command within a second with exit status
// 130 or 143 and nothing written, also while train writes its files and while a custom
// pattern works through a long text; a destination that cannot be made fails before the work,
// and what a failed command made is removed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/test_util.h"

namespace bpeforge::internal {
namespace {

using testing::CommandResult;
using testing::ExpectCleanFailure;
using testing::ReadFileOrDie;
using testing::RunCli;
using testing::TempDir;
using testing::WriteFile;
using Clock = std::chrono::steady_clock;

// The bpeforge command, started in the background with its output in `log`.
class Running {
 public:
  Running(const std::vector<std::string>& args, const std::string& log) {
    pid_ = fork();
    if (pid_ == 0) {
      freopen(log.c_str(), "w", stdout);
      freopen(log.c_str(), "a", stderr);
      std::vector<char*> argv = {const_cast<char*>(BPEFORGE_CLI_PATH)};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(BPEFORGE_CLI_PATH, argv.data());
      _exit(127);
    }
  }
  ~Running() {
    if (pid_ > 0 && !done_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  bool running() {
    if (done_) return false;
    done_ = waitpid(pid_, &status_, WNOHANG) == pid_;
    return !done_;
  }
  void Signal(int signal) { kill(pid_, signal); }
  // The exit status once it ended, waiting up to `seconds`; -1 if it is still running then.
  int ExitWithin(double seconds) {
    const auto until = Clock::now() + std::chrono::duration<double>(seconds);
    while (running() && Clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!done_) return -1;
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
  }

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  bool done_ = false;
};

// Whether `dir` holds a file a writer has begun (name.tmp-XXXXXX).
bool HasTemporaryFile(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) return true;
  }
  return false;
}

// A stop must come within a second; a loaded machine gets three.
constexpr double kStopSeconds = 3.0;

TEST(StoppingTest, TrainStopsWhileItWritesItsFiles) {
  TempDir dir;
  // One letter: its tokens join runs of nearly the whole text, and its files are many times
  // its size, so writing them takes seconds.
  WriteFile(dir.File("a.txt"), std::string(8 << 20, 'a'));
  const std::string out = dir.File("new/tok");
  for (int signal : {SIGTERM, SIGINT}) {
    Running train({"train", dir.File("a.txt"), "--vocab-size", "1000", "--out", out},
                  dir.File("log"));
    const auto until = Clock::now() + std::chrono::seconds(120);
    while (train.running() && !HasTemporaryFile(out) && Clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(train.running()) << "training ended before it wrote: "
                                 << ReadFileOrDie(dir.File("log"));
    train.Signal(signal);
    EXPECT_EQ(train.ExitWithin(kStopSeconds), 128 + signal) << ReadFileOrDie(dir.File("log"));
    EXPECT_FALSE(std::filesystem::exists(dir.File("new"))) << "a stopped train left its files";
  }
}

TEST(StoppingTest, ACustomPatternStopsWithinASecond) {
  TempDir dir;
  // Without special tokens, a custom pattern's text is one piece per file, which one thread
  // takes whole: about ten seconds of work.
  std::string text;
  while (text.size() < (64 << 20)) text += "the quick brown fox jumps over the lazy dog. ";
  WriteFile(dir.File("text.txt"), text);
  const std::string pattern = "\\p{L}+| ?[^\\s\\p{L}]+|\\s+";
  WriteFile(dir.File("small.txt"), text.substr(0, 4096));
  CommandResult r = RunCli("train '" + dir.File("small.txt") + "' --vocab-size 300 --pattern '" +
                           pattern + "' --quiet --out '" + dir.File("tok") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::vector<std::string>> commands = {
      {"count", dir.File("text.txt"), "--pattern", pattern, "--out", dir.File("out/x.counts")},
      {"train", dir.File("text.txt"), "--pattern", pattern, "--vocab-size", "300", "--out",
       dir.File("out/tok")},
      {"encode", "--tokenizer", dir.File("tok"), dir.File("text.txt"), "--output",
       dir.File("out/ids")}};
  for (const std::vector<std::string>& command : commands) {
    std::filesystem::create_directory(dir.File("out"));
    Running running(command, dir.File("log"));
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    ASSERT_TRUE(running.running()) << command[0] << " ended before the signal";
    running.Signal(SIGINT);
    EXPECT_EQ(running.ExitWithin(kStopSeconds), 130)
        << command[0] << ": " << ReadFileOrDie(dir.File("log"));
    EXPECT_TRUE(std::filesystem::is_empty(dir.File("out"))) << command[0] << " left files";
    std::filesystem::remove_all(dir.File("out"));
  }
}

// Checked by making them: /proc and /sys pass a prediction from permission bits (as root, all
// of them), and failed only when the finished work was written.
TEST(StoppingTest, DestinationsThatCannotBeMadeFailBeforeTheWork) {
  TempDir dir;
  WriteFile(dir.File("in.txt"), "some text to train on, and more text\n");
  const std::string in = dir.File("in.txt");
  for (const std::string out : {"/proc/bpeforge-test", "/sys/bpeforge-test/tok"}) {
    CommandResult r = RunCli("train '" + in + "' --vocab-size 300 --out '" + out + "'");
    ExpectCleanFailure(r, "--out " + out);
    EXPECT_EQ(r.err.find("pre-tokenizing"), std::string::npos) << r.err;
    ExpectCleanFailure(RunCli("count '" + in + "' --out '" + out + "'"), "--out " + out);
    ExpectCleanFailure(RunCli("train '" + in + "' --vocab-size 300 --out '" + dir.File("o") +
                              "' --stats-json '" + out + "'"),
                       "--stats-json " + out);
  }
  EXPECT_FALSE(std::filesystem::exists(dir.File("o")));
  // A folder made for the output goes again when the work fails.
  WriteFile(dir.File("bad.txt"), "valid text, then \xff, which is not UTF-8");
  ExpectCleanFailure(RunCli("train '" + dir.File("bad.txt") + "' --vocab-size 300 --out '" +
                            dir.File("new/deeper/tok") + "'"),
                     "invalid UTF-8");
  EXPECT_FALSE(std::filesystem::exists(dir.File("new")));
}

}  // namespace
}  // namespace bpeforge::internal
