// The files bpeforge writes, told apart from a corpus's: a folder walked for text leaves them
// out, so that `train data/ --out data/tok-10k`, then `train data/ --out data/tok-32k`, read the
// same text (the second run read data/tok-10k/merges.txt as text once --include '*.txt' let it).
//
//   if (IsTokenizerFolder("data/tok-10k")) ...   // it holds a bpeforge.json manifest
//   if (IsIdsSidecar("data/ids.bin.json")) ...   // encode's sidecar of data/ids.bin
//   if (IsCountsFile("data/shard0.counts")) ...  // it starts with the count file's magic
//
// Each reads at most a small file or a file's first bytes; a file that cannot be read is not
// bpeforge's (reading it as text then says what is wrong).
#ifndef BPEFORGE_CORE_FORMATS_OWN_FILES_H_
#define BPEFORGE_CORE_FORMATS_OWN_FILES_H_

#include <string>

namespace bpeforge::internal {

// `dir` holds a bpeforge.json whose "format" is "bpeforge" (`train`, `export`, Python's save).
bool IsTokenizerFolder(const std::string& dir);
// `path` is a small JSON file whose "format" is "bpeforge-ids" (written beside an ids file).
bool IsIdsSidecar(const std::string& path);
// `path` starts with the magic of `bpeforge count`'s files.
bool IsCountsFile(const std::string& path);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_FORMATS_OWN_FILES_H_
