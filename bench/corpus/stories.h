// TinyStories-like text: short children's stories from templates with a small cast.
#ifndef BPEFORGE_BENCH_CORPUS_STORIES_H_
#define BPEFORGE_BENCH_CORPUS_STORIES_H_

#include "bench/corpus/sampling.h"
#include "bench/corpus/text_buffer.h"

namespace bpeforge::internal::bench {

// Appends one story, ended by <|endoftext|>.
void WriteStory(Rng& rng, Out& out);

}  // namespace bpeforge::internal::bench

#endif  // BPEFORGE_BENCH_CORPUS_STORIES_H_
