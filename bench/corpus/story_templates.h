// The sentences the TinyStories-like model fills in, by part of a story. A template's slots
// are written in braces ({N}: the main character's name, {F}: the friend, {O}: the story's
// object, {v}/{vd}: a verb and its past, ...); `kSlotNames` in stories.cc lists them all.
#ifndef BPEFORGE_BENCH_CORPUS_STORY_TEMPLATES_H_
#define BPEFORGE_BENCH_CORPUS_STORY_TEMPLATES_H_

#include <string_view>
#include <vector>

namespace bpeforge::internal::bench {

struct StoryTemplates {
  std::vector<std::string_view> openings, narration, dialogue, endings;
};

extern const StoryTemplates kStoryTemplates;

}  // namespace bpeforge::internal::bench

#endif  // BPEFORGE_BENCH_CORPUS_STORY_TEMPLATES_H_
