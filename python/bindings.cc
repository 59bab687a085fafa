// bpeforge._bpeforge: the Python extension, a thin layer over the public C++ API
// (bpeforge/bpeforge.h). The package bpeforge (python/bpeforge/__init__.py) wraps it in the
// CS336 interface; argument checking that reads better in Python lives there.
//
// Long calls (training, counting, encoding files and batches) run with the GIL released, on a
// worker thread while the calling thread polls for signals and reports progress
// (RunInterruptibly), so Ctrl-C stops them (through the API's cancel flag) and raises
// KeyboardInterrupt. This file defines training and counting; tokenizer_bindings.cc the
// tokenizer. Each part registers itself from the module body below.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bpeforge/bpeforge.h"
#include "bpeforge/internal/front_ends.h"
#include "python/report_bindings.h"
#include "python/support.h"

namespace py = pybind11;

namespace bpeforge::python {
namespace {

// The options of train and count: what the text is counted with, and how many threads.
TrainOptions CountingOptions(const std::vector<std::string>& special_tokens, int threads,
                             const std::string& pattern, const std::string& jsonl_field = "",
                             bool skip_bad_records = false) {
  TrainOptions options;
  options.input.jsonl_field = jsonl_field;
  options.input.skip_bad_records = skip_bad_records;
  options.special_tokens = special_tokens;
  options.threads = threads;
  const PatternArg p = PatternOf(pattern);
  options.pattern = p.pattern;
  options.custom_pattern = p.custom;
  return options;
}

// The options of training (on top of CountingOptions' or a count file's).
void SetTrainingOptions(TrainOptions& options, size_t vocab_size, const std::string& layout,
                        uint64_t min_frequency, size_t max_token_length) {
  options.vocab_size = vocab_size;
  options.layout = Unwrap(ParseIdLayout(layout));
  options.min_frequency = min_frequency;
  options.max_token_length = max_token_length;
}

// Runs `work(options)` interruptibly (RunInterruptibly), its progress handed to `progress`.
template <typename R>
R RunWithOptions(const TrainOptions& options, const py::object& progress,
                 const std::function<R(const TrainOptions&)>& work) {
  ProgressRelay relay(progress);
  return RunInterruptibly<R>(
      [&](const std::atomic<bool>* cancel) -> R {
        TrainOptions o = options;
        o.cancel = cancel;
        o.progress_figures = relay.Sink();
        return work(o);
      },
      &relay);
}

py::tuple VocabAndMerges(absl::StatusOr<TrainResult> result) {
  const TrainResult trained = Unwrap(std::move(result));
  return py::make_tuple(VocabDict(trained.model.vocab), MergeList(trained.model.merges));
}

py::tuple TrainBpe(const std::vector<std::string>& inputs, size_t vocab_size,
                   const std::vector<std::string>& special_tokens, int threads,
                   const std::string& pattern, const std::string& layout,
                   const py::object& progress, uint64_t min_frequency, size_t max_token_length,
                   const std::string& jsonl_field, bool skip_bad_records) {
  TrainOptions options =
      CountingOptions(special_tokens, threads, pattern, jsonl_field, skip_bad_records);
  SetTrainingOptions(options, vocab_size, layout, min_frequency, max_token_length);
  return VocabAndMerges(RunWithOptions<absl::StatusOr<TrainResult>>(
      options, progress, [&](const TrainOptions& o) { return Train(inputs, o); }));
}

void CountToFile(const std::vector<std::string>& inputs, const std::string& output,
                 const std::vector<std::string>& special_tokens, int threads,
                 const std::string& pattern, const py::object& progress,
                 const std::string& jsonl_field, bool skip_bad_records) {
  const TrainOptions options =
      CountingOptions(special_tokens, threads, pattern, jsonl_field, skip_bad_records);
  Unwrap(RunWithOptions<absl::StatusOr<CountedText>>(
      options, progress, [&](const TrainOptions& o) { return CountAndSave(inputs, o, output); }));
}

// Documents from a Python iterable handed to a DocumentCounter in batches of about kBatchBytes:
// the GIL is held to take the items, and released while a batch is copied and queued (and
// while Add waits for room), so the workers count one batch while Python makes the next.
class DocumentFeed {
 public:
  static constexpr size_t kBatchBytes = 1 << 20;

  DocumentFeed(DocumentCounter& counter, ProgressRelay& relay, std::atomic<bool>& cancel)
      : counter_(counter), relay_(relay), cancel_(cancel) {}

  // Each item a str (one document) or a sequence of str (a batch of documents).
  void AddAll(const py::handle& documents) {
    size_t item = 0;
    for (const py::handle doc : py::iter(documents)) {
      if (PyUnicode_Check(doc.ptr())) {
        Take(doc);
      } else if (PyBytes_Check(doc.ptr()) || PyByteArray_Check(doc.ptr()) ||
                 PyDict_Check(doc.ptr()) || !py::isinstance<py::iterable>(doc)) {
        const bool bytes = !PyDict_Check(doc.ptr()) && py::isinstance<py::iterable>(doc);
        throw py::type_error(
            "each item of the iterator must be a str (a document) or a sequence of str (a "
            "batch of documents), not " +
            std::string(py::str(py::type::of(doc).attr("__name__"))) + " (item " +
            std::to_string(item) + ")" +
            (PyDict_Check(doc.ptr()) ? "; pass the column: batch[\"text\"]" : "") +
            (bytes ? "; decode the bytes, or open the file in text mode" : ""));
      } else {
        for (const py::handle d : py::iter(doc)) Take(d, "each document of a batch");
      }
      ++item;
      if (bytes_ >= kBatchBytes) Submit();
    }
    Submit();
  }

 private:
  void Take(const py::handle& doc, const char* what = "each document") {
    views_.push_back(Utf8(doc, what));  // `keep_` owns it
    keep_.append(doc);
    bytes_ += views_.back().size();
  }
  void Submit() {
    relay_.Poll();
    if (views_.empty()) return;
    for (;;) {
      absl::StatusOr<bool> added;
      {
        py::gil_scoped_release release;
        added = counter_.TryAdd(views_, std::chrono::milliseconds(50));
      }
      if (Unwrap(std::move(added))) break;
      // No room yet: Python's signal handlers run (Ctrl-C), and the progress is reported.
      if (PyErr_CheckSignals() != 0) {
        cancel_ = true;
        throw py::error_already_set();
      }
      relay_.Poll();
    }
    views_.clear();
    keep_ = py::list();
    bytes_ = 0;
  }

  DocumentCounter& counter_;
  ProgressRelay& relay_;
  std::atomic<bool>& cancel_;
  std::vector<absl::string_view> views_;
  py::list keep_;
  size_t bytes_ = 0;
};

// Counts the documents of `documents`, then runs finish(counter) interruptibly.
template <typename R>
R WithDocuments(const py::handle& documents, TrainOptions options, const py::object& progress,
                const std::function<R(DocumentCounter&)>& finish) {
  std::atomic<bool> cancel{false};
  ProgressRelay relay(progress);
  options.cancel = &cancel;
  options.progress_figures = relay.Sink();
  DocumentCounter counter = Unwrap(DocumentCounter::Start(options));
  DocumentFeed(counter, relay, cancel).AddAll(documents);
  return RunInterruptibly<R>([&](const std::atomic<bool>*) { return finish(counter); }, &relay,
                             &cancel);
}

py::tuple TrainDocuments(const py::iterable& documents, size_t vocab_size,
                         const std::vector<std::string>& special_tokens, int threads,
                         const std::string& pattern, const std::string& layout,
                         const py::object& progress, uint64_t min_frequency,
                         size_t max_token_length) {
  TrainOptions options = CountingOptions(special_tokens, threads, pattern);
  SetTrainingOptions(options, vocab_size, layout, min_frequency, max_token_length);
  return VocabAndMerges(WithDocuments<absl::StatusOr<TrainResult>>(
      documents, options, progress, [](DocumentCounter& c) { return c.Train(); }));
}

void CountDocuments(const py::iterable& documents, const std::string& output,
                    const std::vector<std::string>& special_tokens, int threads,
                    const std::string& pattern, const py::object& progress) {
  Unwrap(WithDocuments<absl::StatusOr<CountedText>>(
      documents, CountingOptions(special_tokens, threads, pattern), progress,
      [&](DocumentCounter& c) { return c.Save(output); }));
}

// Count files held open between calls. Calls on one object take turns: each reads the files'
// pages and hands them back to the kernel when done.
struct OpenCountFiles {
  explicit OpenCountFiles(CountFiles f) : files(std::move(f)) {}
  CountFiles files;
  std::mutex mu;
};

py::tuple TrainFromCountFiles(OpenCountFiles& self, size_t vocab_size, int threads,
                              const std::string& layout, const py::object& progress,
                              uint64_t min_frequency, size_t max_token_length) {
  const CountedText& counted = self.files.counted();
  TrainOptions options;
  options.special_tokens = counted.special_tokens;
  options.pattern = counted.pattern;
  options.custom_pattern = counted.custom_pattern;
  options.threads = threads;
  SetTrainingOptions(options, vocab_size, layout, min_frequency, max_token_length);
  return VocabAndMerges(
      RunWithOptions<absl::StatusOr<TrainResult>>(options, progress, [&](const TrainOptions& o) {
        std::lock_guard<std::mutex> lock(self.mu);
        return self.files.Train(o);
      }));
}

void DefineTraining(py::module_& m) {
  m.def("train", &TrainBpe, py::arg("inputs"), py::arg("vocab_size"), py::arg("special_tokens"),
        py::arg("threads"), py::arg("pattern"), py::arg("layout"), py::arg("progress"),
        py::arg("min_frequency"), py::arg("max_token_length"), py::arg("jsonl_field"),
        py::arg("skip_bad_records"));
  m.def("train_documents", &TrainDocuments, py::arg("documents"), py::arg("vocab_size"),
        py::arg("special_tokens"), py::arg("threads"), py::arg("pattern"), py::arg("layout"),
        py::arg("progress"), py::arg("min_frequency"), py::arg("max_token_length"));
  m.def("count", &CountToFile, py::arg("inputs"), py::arg("output"), py::arg("special_tokens"),
        py::arg("threads"), py::arg("pattern"), py::arg("progress"), py::arg("jsonl_field"),
        py::arg("skip_bad_records"));
  m.def("count_documents", &CountDocuments, py::arg("documents"), py::arg("output"),
        py::arg("special_tokens"), py::arg("threads"), py::arg("pattern"), py::arg("progress"));
  m.def(
      "expand_inputs",
      [](const std::vector<std::string>& inputs, const std::vector<std::string>& include) {
        std::vector<std::string> left_out;
        std::vector<std::string> files = Unwrap(ExpandInputs(inputs, include, &left_out));
        return std::make_pair(std::move(files), std::move(left_out));
      },
      py::arg("inputs"), py::arg("include"));
  m.def("pattern_regex", [](const std::string& name) {
    const PatternArg p = PatternOf(name);
    return p.pattern == Pattern::kCustom ? p.custom : std::string(PatternRegex(p.pattern));
  });
}

void DefineCountFiles(py::module_& m) {
  py::class_<OpenCountFiles>(m, "CountFiles")
      .def_static("open",
                  [](const std::vector<std::string>& paths) {
                    absl::StatusOr<CountFiles> files;
                    {
                      py::gil_scoped_release release;  // reads every file through once
                      files = CountFiles::Open(paths);
                    }
                    return std::make_unique<OpenCountFiles>(Unwrap(std::move(files)));
                  })
      .def_property_readonly("pattern",
                             [](const OpenCountFiles& f) {
                               const CountedText& c = f.files.counted();
                               return PatternString(c.pattern, c.custom_pattern);
                             })
      .def_property_readonly(
          "special_tokens",
          [](const OpenCountFiles& f) { return f.files.counted().special_tokens; })
      .def_property_readonly("bytes",
                             [](const OpenCountFiles& f) { return f.files.counted().bytes; })
      .def_property_readonly("pretokens",
                             [](const OpenCountFiles& f) { return f.files.counted().pretokens; })
      .def_property_readonly("distinct",
                             [](const OpenCountFiles& f) { return f.files.counted().distinct; })
      .def("train", &TrainFromCountFiles, py::arg("vocab_size"), py::arg("threads"),
           py::arg("layout"), py::arg("progress"), py::arg("min_frequency"),
           py::arg("max_token_length"))
      .def("save", [](OpenCountFiles& f, const std::string& path) {
        absl::StatusOr<CountedText> saved;
        {
          py::gil_scoped_release release;
          std::lock_guard<std::mutex> lock(f.mu);
          saved = f.files.Save(path);
        }
        Unwrap(std::move(saved));
      });
}

}  // namespace
}  // namespace bpeforge::python

PYBIND11_MODULE(_bpeforge, m) {
  m.doc() = "bpeforge's C++ core; use the bpeforge package, not this module.";
  bpeforge::python::DefineTraining(m);
  bpeforge::python::DefineCountFiles(m);
  bpeforge::python::DefineTokenizer(m);
  bpeforge::python::RegisterReport(m);
}
