// The flags that say how `train`, `count` and `encode` read their inputs (folders, globs,
// JSON Lines), and the summary line of what was read.
#ifndef BPEFORGE_CLI_INPUT_FLAGS_H_
#define BPEFORGE_CLI_INPUT_FLAGS_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "bpeforge/bpeforge.h"

namespace bpeforge::cli {

// "-" among the inputs, and the name of the pipe that count files and ids read from it use.
inline const std::string kStdin = "-", kDevStdin = "/dev/stdin";

struct InputFlags {
  std::vector<std::string> args;  // as typed: files, folders, globs, -
  std::vector<std::string> include;
  std::string jsonl_field;
  // With AddInputFlags' `several_fields`: each --jsonl-field (and jsonl_field stays empty).
  std::vector<std::string> jsonl_fields;
  bool skip_bad_records = false;
};

// The positional `inputs` (described by `what`) and --include, --jsonl-field,
// --skip-bad-records. With `several_fields`, --jsonl-field may be given more than once
// (InputFlags::jsonl_fields), each field read as a document of its own.
void AddInputFlags(CLI::App* cmd, InputFlags* flags, const std::string& what,
                   bool several_fields = false);
// The files the arguments name (ExpandInputs), and the options for reading them. A folder's
// files leave out `not_text`, the files this command writes (as an earlier run left them) or
// reads as something else (a tokenizer), so that `train data/ --out data/tok`, then `encode
// data/ --tokenizer data/tok --output data/ids.bin`, read the same files whenever they run. Such
// a file named as an input is kept (and an output then refused by the command). What other
// runs of bpeforge wrote in a folder is left out too (ExpandInputs), and named on standard
// error when `note` (so that each process of an mpirun does not say it again).
// `count_files`: the inputs are count files (count --merge, train --counts).
absl::StatusOr<std::vector<std::string>> InputFiles(const InputFlags& flags,
                                                    const std::vector<std::string>& not_text,
                                                    bool note, bool count_files = false);
InputOptions InputOptionsOf(const InputFlags& flags);

// "1016.3 MB of text in 3 file(s)", then what compression and JSON Lines add: "(352.1 MB as
// stored), 250000 documents, 2 bad records skipped".
std::string DescribeRead(uint64_t text_bytes, size_t files, const InputStats& input);
// Lines for the summary, else "": a piece of at least 16 chunks had no safe cut (one thread
// took it whole, however many were given); a compressed stream needed a decompression window
// beyond zstd's default limit (files written with `zstd --long`), held in memory as it was read.
std::string InputNotes(const InputStats& input, uint64_t chunk_bytes);
// ", 73 MB/s as stored" for compressed inputs, else "".
std::string StoredRate(const InputStats& input, double seconds);

}  // namespace bpeforge::cli

#endif  // BPEFORGE_CLI_INPUT_FLAGS_H_
