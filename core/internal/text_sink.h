// Where a file writer puts its text, a piece at a time: a file being written, or a string.
//
//   std::string text;
//   StringSink sink(&text);
//   WriteMergesTxt(tokens, sink);   // the same writer streams into an AtomicFile (atomic_file.h)
//
// Writers append as they go rather than return the whole text, so that a tokenizer's files
// are never held in memory: they can be many times the corpus (a file of one repeated letter
// makes tokens of nearly its whole length). An error is kept by the sink and reported when
// the file is finished.
#ifndef BPEFORGE_CORE_INTERNAL_TEXT_SINK_H_
#define BPEFORGE_CORE_INTERNAL_TEXT_SINK_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace bpeforge::internal {

class TextSink {
 public:
  virtual ~TextSink() = default;
  virtual void Append(absl::string_view text) = 0;
  // Whether the sink takes nothing more (its file failed, or the work was cancelled): a writer
  // looks between entries and stops early, its output then thrown away.
  virtual bool stopped() const { return false; }

  // Appends the pieces as absl::StrCat would join them.
  template <typename... Pieces>
  void Add(const Pieces&... pieces) {
    Append(absl::StrCat(pieces...));
  }
};

class StringSink : public TextSink {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  void Append(absl::string_view text) override { out_->append(text.data(), text.size()); }

 private:
  std::string* out_;
};

// The text a writer makes, as one string (for tests and small files):
//   std::string text = TextOf([&](TextSink& out) { WriteMergesTxt(tokens, out); });
template <typename Write>
std::string TextOf(Write&& write) {
  std::string text;
  StringSink sink(&text);
  write(static_cast<TextSink&>(sink));
  return text;
}

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_INTERNAL_TEXT_SINK_H_
