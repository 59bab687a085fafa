// The Python extension's support: absl::Status as the Python exception a user expects, long
// calls that Ctrl-C can stop, progress lines, and conversions between Python objects and the
// public API's types. Used by bindings.cc.
#ifndef BPEFORGE_PYTHON_SUPPORT_H_
#define BPEFORGE_PYTHON_SUPPORT_H_

#include <Python.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bpeforge/bpeforge.h"

namespace bpeforge::python {

namespace py = pybind11;

// absl::Status -> the Python exception a user would expect.
[[noreturn]] void Throw(const absl::Status& status);

template <typename T>
T Unwrap(absl::StatusOr<T> value) {
  if (!value.ok()) Throw(value.status());
  return *std::move(value);
}

inline void Check(const absl::Status& status) {
  if (!status.ok()) Throw(status);
}

// Runs work(&cancel) on a worker thread with the GIL released. Every 50 ms the calling thread
// takes the GIL to run Python's signal handlers; when one raises (Ctrl-C: KeyboardInterrupt),
// the cancel flag stops the work, and the exception propagates once the worker has finished.
template <typename R>
R RunInterruptibly(const std::function<R(const std::atomic<bool>*)>& work) {
  std::atomic<bool> cancel{false};
  std::optional<R> result;
  std::exception_ptr error;
  bool interrupted = false;
  {
    py::gil_scoped_release release;
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::thread worker([&] {
      try {
        result.emplace(work(&cancel));
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mu);
      done = true;
      cv.notify_one();
    });
    for (;;) {
      std::unique_lock<std::mutex> lock(mu);
      if (cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) break;
      lock.unlock();
      if (!interrupted) {
        py::gil_scoped_acquire acquire;
        if (PyErr_CheckSignals() != 0) {  // the handler's exception stays set
          interrupted = true;
          cancel = true;
        }
      }
    }
    worker.join();
  }
  if (interrupted) throw py::error_already_set();
  if (error) std::rethrow_exception(error);
  return *std::move(result);
}

// Progress lines on stderr, at most five a second, rewritten in place.
class StderrProgress {
 public:
  void Update(absl::string_view line) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    std::fprintf(stderr, "\r\033[K%.*s", static_cast<int>(line.size()), line.data());
    std::fflush(stderr);
    dirty_ = true;
  }
  ~StderrProgress() {
    if (dirty_) std::fprintf(stderr, "\n");
  }

 private:
  std::mutex mu_;
  std::chrono::steady_clock::time_point last_{};
  bool dirty_ = false;
};

// A str as UTF-8 without a copy; valid while the str lives. Surrogates raise
// UnicodeEncodeError, as str.encode() does; anything but a str TypeError naming `what` and the
// type (bytes with what to do instead).
absl::string_view Utf8(const py::handle& text, const char* what = "text");

std::string BytesOf(const py::handle& value, const char* what);

// Ids from a list, tuple or numpy array of integers; a value that is no token id is
// ValueError (the id may still be missing from the vocabulary: that is checked later).
std::vector<TokenId> IdsOf(const py::handle& ids);

py::list IdList(const std::vector<TokenId>& ids);

py::dict VocabDict(const Vocab& vocab);

py::list MergeList(const Merges& merges);

template <typename T>
py::array ToNumpy(const std::vector<TokenId>& ids) {
  py::array_t<T> out(static_cast<py::ssize_t>(ids.size()));
  T* data = out.mutable_data();
  for (size_t i = 0; i < ids.size(); ++i) data[i] = static_cast<T>(ids[i]);
  return out;
}

}  // namespace bpeforge::python

#endif  // BPEFORGE_PYTHON_SUPPORT_H_
