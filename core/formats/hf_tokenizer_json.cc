#include "core/formats/hf_tokenizer_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/internal/atomic_file.h"
#include "core/internal/byte_unicode.h"
#include "core/internal/status_macros.h"

namespace bpeforge::internal {
namespace {

using nlohmann::ordered_json;

// Ids may leave gaps (left-out repeated tokens), but the table is sized by the largest id.
constexpr size_t kMaxIdGap = 1024;

ordered_json ByteLevel(bool use_regex) {
  return {{"type", "ByteLevel"},
          {"add_prefix_space", false},
          {"trim_offsets", true},
          {"use_regex", use_regex}};
}

ordered_json PreTokenizerJson(Pattern pattern, absl::string_view custom_regex) {
  if (pattern == Pattern::kGpt2) return ByteLevel(true);  // its built-in regex is GPT-2's
  const std::string regex(pattern == Pattern::kCustom ? custom_regex : PortableRegex(pattern));
  ordered_json split = {{"type", "Split"},
                        {"pattern", {{"Regex", regex}}},
                        {"behavior", "Isolated"},
                        {"invert", false}};
  return {{"type", "Sequence"}, {"pretokenizers", {split, ByteLevel(false)}}};
}

}  // namespace

absl::Status WriteHfTokenizerJson(const TiktokenTables& tables, const TokenSpelling& tokens,
                                  Pattern pattern, absl::string_view custom_regex, TextSink& out) {
  // The vocab and merges are written by hand, a line each: a JSON library's ordered object
  // looks keys up linearly, which made a 200k vocabulary take minutes.
  auto quoted = [](absl::string_view text) { return nlohmann::json(std::string(text)).dump(); };
  // A special token's text must not be an ordinary token's visible form: one JSON key cannot
  // name both. (Ordinary tokens' visible forms are distinct, as their bytes are.)
  for (const auto& [token, id] : tables.specials) {
    absl::StatusOr<std::string> bytes = Gpt2ToBytes(token);
    const std::optional<TokenId> first =
        bytes.ok() ? tables.first.Find(*bytes) : std::optional<TokenId>();
    if (first && !tables.special_ids.contains(*first)) {
      return absl::InvalidArgumentError(
          absl::StrCat("special token ", quoted(token),
                       " is also an ordinary token's visible form; tokenizer.json cannot hold "
                       "both"));
    }
  }

  out.Append("{\n  \"version\": \"1.0\",\n  \"truncation\": null,\n  \"padding\": null,\n");
  out.Append("  \"added_tokens\": [");
  for (size_t i = 0; i < tables.specials.size(); ++i) {
    const auto& [token, id] = tables.specials[i];
    out.Add(i == 0 ? "\n" : ",\n", "    {\"id\": ", id, ", \"content\": ", quoted(token),
            ", \"single_word\": false, \"lstrip\": false, \"rstrip\": false, "
            "\"normalized\": false, \"special\": true}");
  }
  out.Add(tables.specials.empty() ? "" : "\n  ", "],\n");
  out.Add("  \"normalizer\": null,\n  \"pre_tokenizer\": ",
          PreTokenizerJson(pattern, custom_regex).dump(), ",\n  \"post_processor\": null,\n",
          "  \"decoder\": ", ByteLevel(true).dump(), ",\n");
  out.Append(
      "  \"model\": {\n    \"type\": \"BPE\",\n    \"dropout\": null,\n    \"unk_token\": null,\n"
      "    \"continuing_subword_prefix\": null,\n    \"end_of_word_suffix\": null,\n"
      "    \"fuse_unk\": false,\n    \"byte_fallback\": false,\n    \"ignore_merges\": true,\n"
      "    \"vocab\": {");
  // The model's vocab holds the special tokens too, under their own text: Hugging Face gives an
  // added token that the model lacks a new id past the model's, not the id written here. Both
  // lists are walked in id order (the ranks are in it already).
  std::vector<std::pair<absl::string_view, TokenId>> specials(tables.specials.begin(),
                                                              tables.specials.end());
  std::sort(specials.begin(), specials.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  size_t r = 0, s = 0, written = 0;
  std::string scratch, other;
  while ((r < tables.ranks.size() || s < specials.size()) && !out.stopped()) {
    const bool special =
        r == tables.ranks.size() || (s < specials.size() && specials[s].second < tables.ranks[r]);
    const std::string key = special ? std::string(specials[s].first)
                                    : BytesToGpt2(tokens.Token(tables.ranks[r], &scratch));
    const TokenId id = special ? specials[s++].second : tables.ranks[r++];
    out.Add(written++ == 0 ? "\n" : ",\n", "      ", quoted(key), ": ", id);
  }
  out.Append("\n    },\n    \"merges\": [");
  for (size_t i = 0; i < tokens.merges() && !out.stopped(); ++i) {
    out.Add(i == 0 ? "\n" : ",\n", "      ",
            quoted(absl::StrCat(BytesToGpt2(tokens.MergeLeft(i, &scratch)), " ",
                                BytesToGpt2(tokens.MergeRight(i, &other)))));
  }
  out.Append("\n    ]\n  }\n}\n");
  return absl::OkStatus();
}

namespace {

using nlohmann::json;

std::string TypeOf(const json& j) {
  return j.is_object() && j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>()
                                                                      : j.dump();
}

// A ByteLevel step as bpeforge implements it; `regex` is whether it must split by itself.
absl::Status CheckByteLevel(const json& j, bool regex, absl::string_view path) {
  if (TypeOf(j) != "ByteLevel") {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": pre-tokenizer ", TypeOf(j), " is not supported"));
  }
  if (j.value("add_prefix_space", false)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ByteLevel add_prefix_space is not supported"));
  }
  if (j.value("use_regex", true) != regex) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": ByteLevel use_regex ", regex ? "false" : "true", " is not supported here"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Pattern> PatternOf(const json& pre, absl::string_view path,
                                  std::string* custom_regex) {
  if (pre.is_null()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": a tokenizer without a pre-tokenizer is not supported"));
  }
  if (TypeOf(pre) == "ByteLevel") {
    BPEFORGE_RETURN_IF_ERROR(CheckByteLevel(pre, true, path));
    return Pattern::kGpt2;
  }
  const json& steps = pre.value("pretokenizers", json::array());
  if (TypeOf(pre) != "Sequence" || steps.size() != 2 || TypeOf(steps[0]) != "Split") {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": pre-tokenizer ", TypeOf(pre),
                     " is not supported (expected ByteLevel, or Sequence of Split and ByteLevel)"));
  }
  const json& split = steps[0];
  const json regex = split.value("pattern", json::object()).value("Regex", json());
  if (!regex.is_string() || split.value("behavior", "") != "Isolated" ||
      split.value("invert", false)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": only a Split by a Regex pattern, Isolated, is supported"));
  }
  BPEFORGE_RETURN_IF_ERROR(CheckByteLevel(steps[1], false, path));
  std::optional<Pattern> pattern = PatternOfRegex(regex.get<std::string>());
  if (pattern.has_value()) return *pattern;
  // Any other regex is a custom pattern, if the reference matcher compiles it.
  *custom_regex = regex.get<std::string>();
  if (auto made = MakeCustomPreTokenizer(*custom_regex); !made.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", made.status().message()));
  }
  return Pattern::kCustom;
}

absl::Status CheckModel(const json& model, absl::string_view path) {
  if (TypeOf(model) != "BPE") {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": model ", TypeOf(model), " is not supported (bpeforge reads byte-level BPE)"));
  }
  for (const char* field : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    const json& v = model.value(field, json());
    if (!v.is_null() && !(v.is_string() && v.get<std::string>().empty())) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": BPE ", field, " is not supported"));
    }
  }
  if (model.value("byte_fallback", false)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": BPE byte_fallback is not supported"));
  }
  const json& dropout = model.value("dropout", json());
  if (!dropout.is_null() && !(dropout.is_number() && dropout.get<double>() == 0)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": BPE dropout is not supported"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Merges> MergesOf(const json& list, absl::string_view path) {
  if (!list.is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": model.merges is not a list"));
  }
  Merges merges;
  merges.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    std::vector<std::string> parts;
    if (list[i].is_string()) {  // "A B", the older form
      parts = absl::StrSplit(list[i].get<std::string>(), ' ');
    } else if (list[i].is_array() && list[i].size() == 2 && list[i][0].is_string() &&
               list[i][1].is_string()) {  // ["A", "B"], tokenizers 0.20 and later
      parts = {list[i][0].get<std::string>(), list[i][1].get<std::string>()};
    }
    if (parts.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": merge ", i + 1, " is not a pair: ", list[i].dump()));
    }
    absl::StatusOr<std::string> left = Gpt2ToBytes(parts[0]), right = Gpt2ToBytes(parts[1]);
    for (const auto* side : {&left, &right}) {
      if (!side->ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            path, ": merge ", i + 1, " is not byte-level: ", side->status().message()));
      }
    }
    merges.emplace_back(*std::move(left), *std::move(right));
  }
  return merges;
}

}  // namespace

absl::StatusOr<HfTokenizer> ParseHfTokenizerJson(absl::string_view text, absl::string_view path) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not valid JSON at byte ", e.byte, ": ", e.what()));
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not usable JSON: ", e.what()));
  }
  if (!j.is_object() || !j.contains("model")) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a Hugging Face tokenizer.json (no \"model\")"));
  }
  try {
    const json& normalizer = j.value("normalizer", json());
    if (!normalizer.is_null()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": normalizer ", TypeOf(normalizer), " is not supported"));
    }
    const json& decoder = j.value("decoder", json());
    if (!decoder.is_null() && TypeOf(decoder) != "ByteLevel") {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": decoder ", TypeOf(decoder), " is not supported"));
    }
    BPEFORGE_RETURN_IF_ERROR(CheckModel(j["model"], path));
    HfTokenizer out;
    BPEFORGE_ASSIGN_OR_RETURN(out.pattern,
                              PatternOf(j.value("pre_tokenizer", json()), path, &out.custom_regex));
    BPEFORGE_ASSIGN_OR_RETURN(out.merges,
                              MergesOf(j["model"].value("merges", json::array()), path));
    const json& ignore_merges = j["model"].value("ignore_merges", json(false));
    if (!ignore_merges.is_boolean()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": model.ignore_merges is not a boolean"));
    }
    out.ignore_merges = ignore_merges.get<bool>();

    const json& vocab = j["model"].value("vocab", json());
    const json& added = j.value("added_tokens", json::array());
    if (!vocab.is_object() || !added.is_array()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": model.vocab is not an object or added_tokens not a list"));
    }
    const size_t bound = 2 * (vocab.size() + added.size()) + kMaxIdGap;
    auto check_id = [&](const json& id, const std::string& what) -> absl::StatusOr<TokenId> {
      if (!id.is_number_unsigned() || id.get<uint64_t>() >= bound) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": ", what, " has id ", id.dump(), "; ids must be integers below ",
                         bound, " (twice the number of tokens + ", kMaxIdGap, ")"));
      }
      return id.get<TokenId>();
    };
    for (const auto& [key, id] : vocab.items()) {
      absl::StatusOr<TokenId> checked = check_id(id, absl::StrCat("token ", json(key).dump()));
      if (!checked.ok()) return checked.status();
      absl::StatusOr<std::string> bytes = Gpt2ToBytes(key);
      if (!bytes.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": token ", json(key).dump(),
                         " is not byte-level (GPT-2 form): ", bytes.status().message()));
      }
      if (*checked >= out.vocab.size()) out.vocab.resize(size_t{*checked} + 1);
      if (!out.vocab[*checked].empty()) {
        return absl::InvalidArgumentError(absl::StrCat(path, ": id ", *checked, " is used twice"));
      }
      out.vocab[*checked] = *std::move(bytes);
    }
    for (const json& token : added) {
      const std::string content = token.at("content").get<std::string>();
      for (const char* flag : {"single_word", "lstrip", "rstrip"}) {
        if (token.value(flag, false)) {
          return absl::InvalidArgumentError(absl::StrCat(
              path, ": added token ", json(content).dump(), " with ", flag, " is not supported"));
        }
      }
      absl::StatusOr<TokenId> id =
          check_id(token.at("id"), absl::StrCat("added token ", json(content).dump()));
      if (!id.ok()) return id.status();
      out.specials.emplace_back(content, *id);
    }
    return out;
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": malformed tokenizer.json: ", e.what()));
  }
}

absl::StatusOr<HfTokenizer> ReadHfTokenizerJson(const std::string& path) {
  std::string text;
  BPEFORGE_RETURN_IF_ERROR(ReadFile(path, &text));
  return ParseHfTokenizerJson(text, path);
}

}  // namespace bpeforge::internal
