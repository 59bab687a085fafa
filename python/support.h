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
#include <cstring>
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

// The parts of the module, each registering its functions and classes (bindings.cc holds the
// module body).
void DefineTokenizer(py::module_& m);  // tokenizer_bindings.cc

// A pattern name, or else a custom regex (ParsePatternOrRegex; ValueError when neither).
struct PatternArg {
  Pattern pattern = Pattern::kGpt2;
  std::string custom;
};
PatternArg PatternOf(const std::string& name);
// A pattern as Python sees it: its name, or a custom one's regex.
std::string PatternString(Pattern pattern, const std::string& custom);

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

// Progress figures from the worker threads, handed to a Python callable on the calling thread
// (bpeforge._progress turns them into lines on sys.stderr, or passes them on to the user's
// callable), so that what Python does with them happens where Python expects it.
class ProgressRelay {
 public:
  // `report` is None, or called as report(phase, done, total, unit, documents).
  explicit ProgressRelay(py::object report) : report_(std::move(report)) {}
  bool active() const { return !report_.is_none(); }
  // From any thread.
  // The last figures of a phase are kept until polled, so that a phase shorter than the
  // polling interval is still seen to end.
  void Update(const ProgressFigures& figures) {
    std::lock_guard<std::mutex> lock(mu_);
    if (fresh_ && std::strcmp(latest_.phase, figures.phase) != 0) ended_.push_back(latest_);
    latest_ = figures;
    fresh_ = true;
  }
  // With the GIL: calls the callable with the figures not yet reported, the ends of phases
  // first. Throws what it raises.
  void Poll() {
    std::vector<ProgressFigures> figures;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!fresh_) return;
      fresh_ = false;
      figures.swap(ended_);
      figures.push_back(latest_);
    }
    for (const ProgressFigures& f : figures) {
      report_(f.phase, f.done, f.total, f.unit, f.documents);
    }
  }
  // Options whose progress comes here, when active.
  std::function<void(const ProgressFigures&)> Sink() {
    if (!active()) return nullptr;
    return [this](const ProgressFigures& figures) { Update(figures); };
  }

 private:
  py::object report_;
  std::mutex mu_;
  std::vector<ProgressFigures> ended_;  // the last figures of phases since the last poll
  ProgressFigures latest_;
  bool fresh_ = false;
};

// Runs work(cancel) on a worker thread with the GIL released. Every 50 ms the calling thread
// takes the GIL to run Python's signal handlers and to report progress through `relay`; when
// either raises (Ctrl-C: KeyboardInterrupt), the cancel flag stops the work, and the exception
// propagates once the worker has finished. `cancel` is the flag to use (a fresh one if null),
// for work that several calls share.
template <typename R>
R RunInterruptibly(const std::function<R(const std::atomic<bool>*)>& work,
                   ProgressRelay* relay = nullptr, std::atomic<bool>* cancel = nullptr) {
  std::atomic<bool> own_cancel{false};
  if (cancel == nullptr) cancel = &own_cancel;
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
        result.emplace(work(cancel));
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
        interrupted = PyErr_CheckSignals() != 0;  // the handler's exception stays set
        if (!interrupted && relay != nullptr) {
          try {
            relay->Poll();
          } catch (py::error_already_set& e) {
            e.restore();  // raised once the work has stopped
            interrupted = true;
          }
        }
        if (interrupted) *cancel = true;
      }
    }
    worker.join();
  }
  if (interrupted) throw py::error_already_set();
  if (error) std::rethrow_exception(error);
  if (relay != nullptr) relay->Poll();  // the last figures
  return *std::move(result);
}

// A str as UTF-8 without a copy; valid while the str lives. Surrogates raise
// UnicodeEncodeError, as str.encode() does; anything but a str TypeError naming `what` and the
// type (bytes with what to do instead).
absl::string_view Utf8(const py::handle& text, const char* what = "text");

std::string BytesOf(const py::handle& value, const char* what);

// Ids from a list, tuple, iterable or one-dimensional numpy array of integers (Python ints and
// numpy integer scalars): a float or a non-integer array is TypeError, a negative id or one
// beyond 32 bits ValueError naming it (the id may still be missing from the vocabulary: that is
// checked later).
std::vector<TokenId> IdsOf(const py::handle& ids);

py::list IdList(const std::vector<TokenId>& ids);

py::dict VocabDict(const Vocab& vocab);

py::list MergeList(const Merges& merges);

// The numpy integer types ids are given as.
enum class NumpyIds { kUint16, kUint32, kInt32, kInt64, kUint64 };
// "uint16", "uint32", "int32", "int64", "uint64" (numpy's names; the Python layer turns dtypes
// and type objects into them); a narrower type than the vocabulary's ids need is ValueError.
NumpyIds NumpyIdsOf(const std::string& dtype, size_t id_limit);

// A one-dimensional numpy array of `type` holding ids[0], ..., ids[n - 1] of each part in turn,
// copied with the GIL released.
py::array ConcatenatedToNumpy(const std::vector<std::vector<TokenId>>& parts, NumpyIds type);

}  // namespace bpeforge::python

#endif  // BPEFORGE_PYTHON_SUPPORT_H_
