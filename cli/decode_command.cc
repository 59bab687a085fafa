#include "cli/decode_command.h"

#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "cli/id_width.h"
#include "cli/tokenizer_source.h"
#include "core/atomic_file.h"
#include "parallel/mapped_file.h"

namespace bpeforge {
namespace {

struct DecodeArgs {
  TokenizerFlags tokenizer;
  std::string ids_file;
  std::string dtype = "uint32";
  std::string output;
};

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "bpeforge decode: error: %s\n", std::string(status.message()).c_str());
  return 1;
}

int RunDecode(const DecodeArgs& args) {
  absl::StatusOr<Tokenizer> tokenizer = LoadTokenizer(args.tokenizer);
  if (!tokenizer.ok()) return Fail(tokenizer.status());
  absl::StatusOr<MappedFile> ids = MappedFile::Open(args.ids_file);
  if (!ids.ok()) return Fail(ids.status());
  const size_t width = IdWidth(args.dtype);
  const absl::string_view data = ids->data();
  if (data.size() % width != 0) {
    return Fail(absl::InvalidArgumentError(
        absl::StrFormat("%s: size %d is not a multiple of %d bytes (%s); truncated?", args.ids_file,
                        data.size(), width, args.dtype)));
  }
  const size_t count = data.size() / width;
  // Check every id before writing anything, so that a bad file leaves no output.
  for (size_t i = 0; i < count; ++i) {
    const TokenId id = IdAt(data.data(), i, width);
    if (!tokenizer->TokenBytes(id).has_value()) {
      return Fail(absl::InvalidArgumentError(
          absl::StrFormat("%s: id %d at index %d is not in the vocabulary (ids are below %d)",
                          args.ids_file, id, i, tokenizer->id_limit())));
    }
  }

  AtomicFile file;
  if (!args.output.empty()) {
    if (absl::Status s = AtomicFile::Open(args.output, &file); !s.ok()) return Fail(s);
  }
  std::string buffer;
  auto flush = [&]() -> absl::Status {
    if (!args.output.empty()) return file.Write(buffer);
    if (std::fwrite(buffer.data(), 1, buffer.size(), stdout) != buffer.size()) {
      return absl::UnavailableError("cannot write to standard output");
    }
    return absl::OkStatus();
  };
  for (size_t i = 0; i < count; ++i) {
    const absl::string_view bytes = *tokenizer->TokenBytes(IdAt(data.data(), i, width));
    buffer.append(bytes.data(), bytes.size());
    if (buffer.size() >= (1 << 20)) {
      if (absl::Status s = flush(); !s.ok()) return Fail(s);
      buffer.clear();
    }
  }
  if (absl::Status s = flush(); !s.ok()) return Fail(s);
  if (!args.output.empty()) {
    if (absl::Status s = file.Commit(); !s.ok()) return Fail(s);
  } else if (std::fflush(stdout) != 0) {
    return Fail(absl::UnavailableError("cannot write to standard output"));
  }
  return 0;
}

}  // namespace

void AddDecodeCommand(CLI::App& app, std::function<int()>* action) {
  auto args = std::make_shared<DecodeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "decode",
      "Turn a flat little-endian array of token ids back into text: the tokens' bytes, "
      "concatenated as they are (so decoding what `encode` wrote gives the input back).");
  AddTokenizerFlags(cmd, &args->tokenizer);
  cmd->add_option("ids", args->ids_file, "The ids file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--dtype", args->dtype, "Id type the file was written with: uint16 or uint32")
      ->check(CLI::IsMember({"uint16", "uint32"}))
      ->capture_default_str();
  cmd->add_option("--output", args->output,
                  "Write the text here (whole or not at all) instead of standard output");
  cmd->callback([args, action] { *action = [args] { return RunDecode(*args); }; });
}

}  // namespace bpeforge
