// bpeforge._bpeforge: the Python extension, a thin layer over the public C++ API
// (bpeforge/bpeforge.h). The package bpeforge (python/bpeforge/__init__.py) wraps it in the
// CS336 interface; argument checking that reads better in Python lives there.
//
// Long calls (training, encoding files and batches) run with the GIL released. Training and
// file encoding run on a worker thread while the calling thread polls for signals, so Ctrl-C
// stops them (through the API's cancel flag) and raises KeyboardInterrupt.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bpeforge/bpeforge.h"
#include "python/report_bindings.h"
#include "python/support.h"

namespace py = pybind11;

namespace bpeforge::python {
namespace {

// A pattern name, or else a custom regex (ParsePatternOrRegex).
struct PatternArg {
  Pattern pattern = Pattern::kGpt2;
  std::string custom;
};
PatternArg PatternOf(const std::string& name) {
  PatternArg p;
  p.pattern = Unwrap(ParsePatternOrRegex(name, &p.custom));
  return p;
}
// A pattern as Python sees it: its name, or a custom one's regex.
std::string PatternString(Pattern pattern, const std::string& custom) {
  return pattern == Pattern::kCustom ? custom : std::string(PatternName(pattern));
}

// The options of train and count: what the text is counted with, and how many threads.
TrainOptions CountingOptions(const std::vector<std::string>& special_tokens, int threads,
                             const std::string& pattern, const std::string& jsonl_field,
                             bool skip_bad_records) {
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

// Runs `work(options)` interruptibly (RunInterruptibly), with progress lines on stderr if asked.
template <typename R>
R RunWithOptions(const TrainOptions& options, bool progress,
                 const std::function<R(const TrainOptions&)>& work) {
  return RunInterruptibly<R>([&](const std::atomic<bool>* cancel) -> R {
    StderrProgress printer;
    TrainOptions o = options;
    o.cancel = cancel;
    if (progress) o.progress = [&](absl::string_view line) { printer.Update(line); };
    return work(o);
  });
}

py::tuple VocabAndMerges(absl::StatusOr<TrainResult> result) {
  const TrainResult trained = Unwrap(std::move(result));
  return py::make_tuple(VocabDict(trained.model.vocab), MergeList(trained.model.merges));
}

py::tuple TrainBpe(const std::vector<std::string>& inputs, size_t vocab_size,
                   const std::vector<std::string>& special_tokens, int threads,
                   const std::string& pattern, const std::string& layout, bool progress,
                   uint64_t min_frequency, size_t max_token_length, const std::string& jsonl_field,
                   bool skip_bad_records) {
  TrainOptions options =
      CountingOptions(special_tokens, threads, pattern, jsonl_field, skip_bad_records);
  options.min_frequency = min_frequency;
  options.max_token_length = max_token_length;
  options.vocab_size = vocab_size;
  options.layout = Unwrap(ParseIdLayout(layout));
  return VocabAndMerges(RunWithOptions<absl::StatusOr<TrainResult>>(
      options, progress, [&](const TrainOptions& o) { return Train(inputs, o); }));
}

void CountToFile(const std::vector<std::string>& inputs, const std::string& output,
                 const std::vector<std::string>& special_tokens, int threads,
                 const std::string& pattern, bool progress, const std::string& jsonl_field,
                 bool skip_bad_records) {
  const TrainOptions options =
      CountingOptions(special_tokens, threads, pattern, jsonl_field, skip_bad_records);
  Unwrap(RunWithOptions<absl::StatusOr<CountedText>>(
      options, progress, [&](const TrainOptions& o) { return CountAndSave(inputs, o, output); }));
}

// Count files held open between calls. Calls on one object take turns: each reads the files'
// pages and hands them back to the kernel when done.
struct OpenCountFiles {
  explicit OpenCountFiles(CountFiles f) : files(std::move(f)) {}
  CountFiles files;
  std::mutex mu;
};

py::tuple TrainFromCountFiles(OpenCountFiles& self, size_t vocab_size, int threads,
                              const std::string& layout, bool progress, uint64_t min_frequency,
                              size_t max_token_length) {
  const CountedText& counted = self.files.counted();
  TrainOptions options;
  options.vocab_size = vocab_size;
  options.special_tokens = counted.special_tokens;
  options.pattern = counted.pattern;
  options.custom_pattern = counted.custom_pattern;
  options.threads = threads;
  options.layout = Unwrap(ParseIdLayout(layout));
  options.min_frequency = min_frequency;
  options.max_token_length = max_token_length;
  return VocabAndMerges(
      RunWithOptions<absl::StatusOr<TrainResult>>(options, progress, [&](const TrainOptions& o) {
        std::lock_guard<std::mutex> lock(self.mu);
        return self.files.Train(o);
      }));
}

Tokenizer CreateTokenizer(const py::dict& vocab, const py::iterable& merges,
                          const std::vector<std::string>& special_tokens,
                          const std::string& pattern) {
  Vocab dense(vocab.size());
  std::vector<bool> seen(vocab.size());
  for (const auto& [key, value] : vocab) {
    if (!PyLong_Check(key.ptr())) throw py::type_error("vocab ids must be int");
    const long long id = PyLong_AsLongLong(key.ptr());
    if (id < 0 || static_cast<size_t>(id) >= dense.size()) {
      throw py::value_error("vocab ids must be 0 .. len(vocab) - 1; id " + std::to_string(id) +
                            " is not");
    }
    dense[id] = BytesOf(value, "vocab values");
    seen[id] = true;
  }
  Merges merge_list;
  for (const py::handle& m : merges) {
    py::tuple pair = py::reinterpret_borrow<py::object>(m).cast<py::tuple>();
    if (pair.size() != 2) throw py::value_error("a merge must be a pair of bytes");
    merge_list.emplace_back(BytesOf(pair[0], "merges"), BytesOf(pair[1], "merges"));
  }
  const PatternArg p = PatternOf(pattern);
  return Unwrap(Tokenizer::Create(dense, merge_list, special_tokens, p.pattern, p.custom));
}

}  // namespace
}  // namespace bpeforge::python

using namespace bpeforge;          // NOLINT: the module body names the API's types
using namespace bpeforge::python;  // NOLINT

PYBIND11_MODULE(_bpeforge, m) {
  m.doc() = "bpeforge's C++ core; use the bpeforge package, not this module.";

  m.def("train", &TrainBpe, py::arg("inputs"), py::arg("vocab_size"), py::arg("special_tokens"),
        py::arg("threads"), py::arg("pattern"), py::arg("layout"), py::arg("progress"),
        py::arg("min_frequency"), py::arg("max_token_length"), py::arg("jsonl_field"),
        py::arg("skip_bad_records"));
  m.def("count", &CountToFile, py::arg("inputs"), py::arg("output"), py::arg("special_tokens"),
        py::arg("threads"), py::arg("pattern"), py::arg("progress"), py::arg("jsonl_field"),
        py::arg("skip_bad_records"));
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

  py::class_<Tokenizer>(m, "Tokenizer")
      .def_static("create", &CreateTokenizer)
      .def_static("load",
                  [](const std::string& path, const std::vector<std::string>& specials,
                     const std::optional<std::string>& pattern, const std::string& special_ids) {
                    LoadOptions options;
                    options.special_tokens = specials;
                    options.special_ids_path = special_ids;
                    if (pattern) {
                      const PatternArg p = PatternOf(*pattern);
                      options.pattern = p.pattern;
                      options.custom_pattern = p.custom;
                    }
                    return Unwrap(Tokenizer::Load(path, options));
                  })
      .def_static(
          "load_gpt2",
          [](const std::string& vocab, const std::string& merges,
             const std::vector<std::string>& specials, const std::optional<std::string>& pattern) {
            LoadOptions options;
            options.special_tokens = specials;
            if (pattern) {
              const PatternArg p = PatternOf(*pattern);
              options.pattern = p.pattern;
              options.custom_pattern = p.custom;
            }
            return Unwrap(Tokenizer::LoadGpt2(vocab, merges, options));
          })
      .def("save", [](const Tokenizer& t, const std::string& dir) { Check(t.Save(dir)); })
      .def("encode",
           [](const Tokenizer& t, const py::handle& text) {
             const absl::string_view utf8 = Utf8(text);
             std::vector<TokenId> ids;
             if (utf8.size() < (1 << 16)) {
               ids = t.Encode(utf8);
             } else {
               py::gil_scoped_release release;
               ids = t.Encode(utf8);
             }
             return IdList(ids);
           })
      .def("encode_ordinary",
           [](const Tokenizer& t, const py::handle& text) {
             const absl::string_view utf8 = Utf8(text);
             std::vector<TokenId> ids;
             {
               py::gil_scoped_release release;
               ids = t.EncodeOrdinary(utf8);
             }
             return IdList(ids);
           })
      .def("encode_batch",
           [](const Tokenizer& t, const py::sequence& texts, int threads) {
             std::vector<absl::string_view> views;
             views.reserve(texts.size());
             for (const py::handle& text : texts)
               views.push_back(Utf8(text, "each text"));  // texts own them
             std::vector<std::vector<TokenId>> ids;
             {
               py::gil_scoped_release release;
               ids = t.EncodeBatch(views, threads);
             }
             py::list out(ids.size());
             for (size_t i = 0; i < ids.size(); ++i) {
               out[i] = IdList(ids[i]);
               std::vector<TokenId>().swap(ids[i]);
             }
             return out;
           })
      .def("encode_to_numpy",
           [](const Tokenizer& t, const py::handle& text, const std::string& dtype) {
             const IdType type = Unwrap(ParseIdType(dtype));
             if (type == IdType::kUint16 && t.id_limit() > 65536) {
               throw py::value_error("the vocabulary has ids that do not fit in uint16");
             }
             const absl::string_view utf8 = Utf8(text);
             std::vector<TokenId> ids;
             {
               py::gil_scoped_release release;
               ids = t.Encode(utf8);
             }
             return type == IdType::kUint16 ? ToNumpy<uint16_t>(ids) : ToNumpy<uint32_t>(ids);
           })
      .def("encode_file",
           [](const Tokenizer& t, const std::vector<std::string>& inputs, const std::string& output,
              const std::string& dtype, int threads, const std::string& separator_token,
              const std::string& jsonl_field, bool skip_bad_records) {
             EncodeFilesOptions options;
             options.threads = threads;
             options.separator_token = separator_token;
             options.input.jsonl_field = jsonl_field;
             options.input.skip_bad_records = skip_bad_records;
             options.id_type = Unwrap(ParseIdType(dtype));
             auto stats = RunInterruptibly<absl::StatusOr<EncodeFilesStats>>(
                 [&](const std::atomic<bool>* cancel) {
                   EncodeFilesOptions o = options;
                   o.cancel = cancel;
                   return t.EncodeFile(inputs, output, o);
                 });
             return Unwrap(std::move(stats)).tokens;
           })
      .def("decode_bytes",
           [](const Tokenizer& t, const py::handle& ids) {
             return py::bytes(Unwrap(t.DecodeBytes(IdsOf(ids))));
           })
      .def("decode",
           [](const Tokenizer& t, const py::handle& ids) {
             const std::string text = Unwrap(t.Decode(IdsOf(ids)));  // valid UTF-8
             return py::str(text.data(), text.size());
           })
      .def("token_bytes",
           [](const Tokenizer& t, TokenId id) -> std::optional<py::bytes> {
             auto bytes = t.TokenBytes(id);
             if (!bytes) return std::nullopt;
             return py::bytes(bytes->data(), bytes->size());
           })
      .def("special_token_id",
           [](const Tokenizer& t, const std::string& token) { return t.SpecialTokenId(token); })
      .def_property_readonly("id_limit", &Tokenizer::id_limit)
      .def_property_readonly("from_rank_file", &Tokenizer::from_rank_file)
      .def_property_readonly(
          "pattern",
          [](const Tokenizer& t) { return PatternString(t.pattern(), t.custom_pattern()); })
      .def_property_readonly("special_tokens", &Tokenizer::special_tokens)
      .def("vocab",
           [](const Tokenizer& t) {
             py::dict out;
             for (size_t id = 0; id < t.id_limit(); ++id) {
               if (auto b = t.TokenBytes(static_cast<TokenId>(id))) {
                 out[py::int_(id)] = py::bytes(b->data(), b->size());
               }
             }
             return out;
           })
      .def("merges", [](const Tokenizer& t) -> std::optional<py::list> {
        if (t.model() == nullptr) return std::nullopt;
        return MergeList(t.model()->merges);
      });

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

  RegisterReport(m);

  py::class_<StreamEncoder>(m, "StreamEncoder")
      // No cache: encode_iterable must not allocate as it goes (CS336 runs it under a cap on
      // the address space).
      .def(py::init([](const Tokenizer& t) { return StreamEncoder(t, 0); }))
      .def("push",
           [](StreamEncoder& e, const py::handle& piece) {
             std::vector<TokenId> ids;
             e.Push(Utf8(piece, "each piece of the iterable"), &ids);
             return IdList(ids);
           })
      .def("finish", [](StreamEncoder& e) {
        std::vector<TokenId> ids;
        e.Finish(&ids);
        return IdList(ids);
      });
}
