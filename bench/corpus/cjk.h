// CJK-like text: the stories flavour as a language written without spaces. Each English word
// becomes one to three ideographs chosen by a hash of the word (so frequent words give frequent
// characters, about 3,500 in use), spaces are dropped, . , ! ? become full-width, quotes
// become “ ”, and the paragraphs keep their blank lines: "。\n\n". Digits and the
// <|endoftext|> line stay as they are.
#ifndef BPEFORGE_BENCH_CORPUS_CJK_H_
#define BPEFORGE_BENCH_CORPUS_CJK_H_

#include <string_view>

#include "bench/corpus/text_buffer.h"

namespace bpeforge::internal::bench {

// Appends `stories` (whole stories, as WriteStory writes them) written as CJK-like text.
void WriteAsCjk(std::string_view stories, Out& out);

}  // namespace bpeforge::internal::bench

#endif  // BPEFORGE_BENCH_CORPUS_CJK_H_
