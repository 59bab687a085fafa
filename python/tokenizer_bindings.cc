// The extension's Tokenizer and StreamEncoder (see bindings.cc): encoding with the GIL released,
// batches in parallel, offsets, numpy arrays, and decoding that checks its ids.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "bpeforge/bpeforge.h"
#include "python/support.h"

namespace py = pybind11;

namespace bpeforge::python {
namespace {

// Special tokens to match: all of them (nullopt), or those given (tiktoken's allowed_special).
using Allowed = std::optional<std::vector<std::string>>;

std::vector<TokenId> EncodeText(const Tokenizer& t, absl::string_view utf8,
                                const Allowed& allowed) {
  if (!allowed.has_value()) return t.Encode(utf8);
  if (allowed->empty()) return t.EncodeOrdinary(utf8);
  return t.EncodeAllowing(utf8, *allowed);
}

// Encodes with the GIL released where the text is long enough to repay it.
std::vector<TokenId> EncodeReleasing(const Tokenizer& t, const py::handle& text,
                                     const Allowed& allowed) {
  const absl::string_view utf8 = Utf8(text);
  if (utf8.size() < (1 << 16)) return EncodeText(t, utf8, allowed);
  py::gil_scoped_release release;
  return EncodeText(t, utf8, allowed);
}

// Each token's span in `text` in code points, as Hugging Face's `tokenizers` reports it: a
// token that holds part of a multi-byte character spans that whole character (so two tokens
// that share a character overlap on it), and a special token spans its text.
py::list CharacterOffsets(const Tokenizer& t, absl::string_view utf8,
                          const std::vector<TokenId>& ids) {
  py::list out(ids.size());
  size_t byte = 0;        // where the next token starts
  size_t scanned = 0;     // bytes looked at so far
  size_t characters = 0;  // characters that start before `scanned`
  // The index of the character that holds byte `b` (b >= scanned - 1, b < text size).
  auto character_at = [&](size_t b) {
    for (; scanned <= b; ++scanned) {
      if ((static_cast<unsigned char>(utf8[scanned]) & 0xC0) != 0x80) ++characters;
    }
    return characters - 1;
  };
  for (size_t i = 0; i < ids.size(); ++i) {
    const size_t length = t.TokenBytes(ids[i])->size();
    const size_t start = character_at(byte);
    const size_t end = character_at(byte + length - 1) + 1;
    byte += length;
    out[i] = py::make_tuple(start, end);
  }
  return out;
}

// The ids of `ids` that are not special tokens' (decode's skip_special_tokens).
void DropSpecialIds(const Tokenizer& t, std::vector<TokenId>& ids) {
  absl::flat_hash_set<TokenId> special;
  for (const std::string& s : t.special_tokens()) special.insert(*t.SpecialTokenId(s));
  ids.erase(
      std::remove_if(ids.begin(), ids.end(), [&](TokenId id) { return special.contains(id); }),
      ids.end());
}

std::vector<TokenId> IdsToDecode(const Tokenizer& t, const py::handle& ids, bool skip_special) {
  std::vector<TokenId> out = IdsOf(ids);
  if (skip_special) DropSpecialIds(t, out);
  return out;
}

py::str DecodeToStr(const Tokenizer& t, const std::vector<TokenId>& ids) {
  const std::string text = Unwrap(t.Decode(ids));  // valid UTF-8
  return py::str(text.data(), text.size());
}

// The views of `texts` (which own them), each a str.
std::vector<absl::string_view> Views(const py::sequence& texts) {
  std::vector<absl::string_view> views;
  views.reserve(texts.size());
  for (const py::handle text : texts) views.push_back(Utf8(text, "each text"));
  return views;
}

// EncodeBatch, stopped by Ctrl-C within a fraction of a second.
std::vector<std::vector<TokenId>> EncodeBatchInterruptibly(const Tokenizer& t,
                                                           const py::sequence& texts, int threads) {
  const std::vector<absl::string_view> views = Views(texts);
  return RunInterruptibly<std::vector<std::vector<TokenId>>>(
      [&](const std::atomic<bool>* cancel) { return t.EncodeBatch(views, threads, cancel); });
}

Tokenizer CreateTokenizer(const py::dict& vocab, const py::iterable& merges,
                          const std::vector<std::string>& special_tokens,
                          const std::string& pattern) {
  Vocab dense(vocab.size());
  for (const auto& [key, value] : vocab) {
    if (!PyLong_Check(key.ptr())) throw py::type_error("vocab ids must be int");
    const long long id = PyLong_AsLongLong(key.ptr());
    if (id < 0 || static_cast<size_t>(id) >= dense.size()) {
      throw py::value_error("vocab ids must be 0 .. len(vocab) - 1; id " + std::to_string(id) +
                            " is not");
    }
    dense[id] = BytesOf(value, "vocab values");
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

LoadOptions LoadOptionsOf(const std::vector<std::string>& specials,
                          const std::optional<std::string>& pattern) {
  LoadOptions options;
  options.special_tokens = specials;
  if (pattern) {
    const PatternArg p = PatternOf(*pattern);
    options.pattern = p.pattern;
    options.custom_pattern = p.custom;
  }
  return options;
}

void DefineEncoding(py::class_<Tokenizer>& c) {
  c.def(
       "encode",
       [](const Tokenizer& t, const py::handle& text, const Allowed& allowed) {
         return IdList(EncodeReleasing(t, text, allowed));
       },
       py::arg("text"), py::arg("allowed") = py::none())
      .def("encode_ordinary",
           [](const Tokenizer& t, const py::handle& text) {
             return IdList(EncodeReleasing(t, text, std::vector<std::string>()));
           })
      .def("encode_with_offsets",
           [](const Tokenizer& t, const py::handle& text, const Allowed& allowed) {
             const std::vector<TokenId> ids = EncodeReleasing(t, text, allowed);
             return py::make_tuple(IdList(ids), CharacterOffsets(t, Utf8(text), ids));
           })
      .def("encode_batch",
           [](const Tokenizer& t, const py::sequence& texts, int threads) {
             std::vector<std::vector<TokenId>> ids = EncodeBatchInterruptibly(t, texts, threads);
             py::list out(ids.size());
             for (size_t i = 0; i < ids.size(); ++i) {
               out[i] = IdList(ids[i]);
               std::vector<TokenId>().swap(ids[i]);
             }
             return out;
           })
      .def(
          "encode_batch_to_numpy",
          [](const Tokenizer& t, const py::sequence& texts, const std::string& dtype, int threads) {
            const NumpyIds type = NumpyIdsOf(dtype, t.id_limit());
            const std::vector<std::vector<TokenId>> ids =
                EncodeBatchInterruptibly(t, texts, threads);
            py::array_t<int64_t> starts(static_cast<py::ssize_t>(ids.size() + 1));
            int64_t* s = starts.mutable_data();
            s[0] = 0;
            for (size_t i = 0; i < ids.size(); ++i) {
              s[i + 1] = s[i] + static_cast<int64_t>(ids[i].size());
            }
            return py::make_tuple(ConcatenatedToNumpy(ids, type), starts);
          })
      .def("encode_to_numpy",
           [](const Tokenizer& t, const py::handle& text, const std::string& dtype) {
             const NumpyIds type = NumpyIdsOf(dtype, t.id_limit());
             std::vector<std::vector<TokenId>> ids(1);
             ids[0] = EncodeReleasing(t, text, std::nullopt);
             return ConcatenatedToNumpy(ids, type);
           })
      .def("encode_file",
           [](const Tokenizer& t, const std::vector<std::string>& inputs, const std::string& output,
              const std::string& dtype, int threads, const std::string& separator_token,
              const std::string& jsonl_field, bool skip_bad_records, const py::object& progress) {
             EncodeFilesOptions options;
             options.threads = threads;
             options.separator_token = separator_token;
             options.input.jsonl_field = jsonl_field;
             options.input.skip_bad_records = skip_bad_records;
             options.id_type = Unwrap(ParseIdType(dtype));
             ProgressRelay relay(progress);
             if (relay.active()) {
               options.progress = [&relay](uint64_t done, uint64_t total) {
                 relay.Update({"encoding", done, total, "bytes", 0});
               };
             }
             auto stats = RunInterruptibly<absl::StatusOr<EncodeFilesStats>>(
                 [&](const std::atomic<bool>* cancel) {
                   EncodeFilesOptions o = options;
                   o.cancel = cancel;
                   return t.EncodeFile(inputs, output, o);
                 },
                 &relay);
             return Unwrap(std::move(stats)).tokens;
           });
}

void DefineDecoding(py::class_<Tokenizer>& c) {
  c.def("decode_bytes",
        [](const Tokenizer& t, const py::handle& ids, bool skip_special) {
          return py::bytes(Unwrap(t.DecodeBytes(IdsToDecode(t, ids, skip_special))));
        })
      .def("decode",
           [](const Tokenizer& t, const py::handle& ids, bool skip_special) {
             return DecodeToStr(t, IdsToDecode(t, ids, skip_special));
           })
      .def("decode_batch",
           [](const Tokenizer& t, const py::iterable& batch, bool skip_special) {
             py::list out;
             for (const py::handle ids : batch) {
               out.append(DecodeToStr(t, IdsToDecode(t, ids, skip_special)));
             }
             return out;
           })
      .def("token_bytes",
           [](const Tokenizer& t, TokenId id) -> std::optional<py::bytes> {
             auto bytes = t.TokenBytes(id);
             if (!bytes) return std::nullopt;
             return py::bytes(bytes->data(), bytes->size());
           })
      .def("special_token_id",
           [](const Tokenizer& t, const std::string& token) { return t.SpecialTokenId(token); })
      .def("vocab", [](const Tokenizer& t) {
        py::dict out;
        for (size_t id = 0; id < t.id_limit(); ++id) {
          if (auto b = t.TokenBytes(static_cast<TokenId>(id))) {
            out[py::int_(id)] = py::bytes(b->data(), b->size());
          }
        }
        return out;
      });
}

}  // namespace

void DefineTokenizer(py::module_& m) {
  py::class_<Tokenizer> c(m, "Tokenizer");
  c.def_static("create", &CreateTokenizer)
      .def_static("load",
                  [](const std::string& path, const std::vector<std::string>& specials,
                     const std::optional<std::string>& pattern, const std::string& special_ids) {
                    LoadOptions options = LoadOptionsOf(specials, pattern);
                    options.special_ids_path = special_ids;
                    return Unwrap(Tokenizer::Load(path, options));
                  })
      .def_static(
          "load_gpt2",
          [](const std::string& vocab, const std::string& merges,
             const std::vector<std::string>& specials, const std::optional<std::string>& pattern) {
            return Unwrap(Tokenizer::LoadGpt2(vocab, merges, LoadOptionsOf(specials, pattern)));
          })
      .def("save", [](const Tokenizer& t, const std::string& dir) { Check(t.Save(dir)); })
      .def_property_readonly("id_limit", &Tokenizer::id_limit)
      .def_property_readonly("from_rank_file", &Tokenizer::from_rank_file)
      .def_property_readonly(
          "pattern",
          [](const Tokenizer& t) { return PatternString(t.pattern(), t.custom_pattern()); })
      .def_property_readonly("special_tokens", &Tokenizer::special_tokens)
      .def("merges", [](const Tokenizer& t) -> std::optional<py::list> {
        if (t.model() == nullptr) return std::nullopt;
        return MergeList(t.model()->merges);
      });
  DefineEncoding(c);
  DefineDecoding(c);

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

}  // namespace bpeforge::python
