// OpenWebText-like text: prose over a Zipf vocabulary, lists, code, URLs, numbers and other
// scripts.
#ifndef BPEFORGE_BENCH_CORPUS_WEB_H_
#define BPEFORGE_BENCH_CORPUS_WEB_H_

#include "bench/corpus/sampling.h"
#include "bench/corpus/text_buffer.h"

namespace bpeforge::internal::bench {

// Appends one web document, ended by <|endoftext|>.
void WriteWebDocument(Rng& rng, Out& out);

}  // namespace bpeforge::internal::bench

#endif  // BPEFORGE_BENCH_CORPUS_WEB_H_
