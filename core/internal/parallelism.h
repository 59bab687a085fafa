// How core code may spread work over threads without owning any: the caller lends it a task
// runner (the parallel layer's thread pool) and says how many parts to cut work into.
#ifndef BPEFORGE_CORE_INTERNAL_PARALLELISM_H_
#define BPEFORGE_CORE_INTERNAL_PARALLELISM_H_

#include <algorithm>
#include <cstddef>
#include <functional>

namespace bpeforge::internal {

struct Parallelism {
  // Parts to cut a large piece of work into; 1 keeps everything on the calling thread.
  size_t workers = 1;
  // Runs task(0) .. task(n - 1), possibly at the same time, and returns when all are done.
  // Needed when workers > 1.
  std::function<void(size_t n, const std::function<void(size_t)>& task)> run;
  // The merge loop splits work over words (the initial pair count, a merge's rewrites) only
  // from this many words on: below it the hand-off costs more than it saves. Tests lower it to
  // exercise the split on small inputs.
  size_t min_split_words = 4096;
};

// How many parts work may be cut into: one without a task runner.
inline size_t Workers(const Parallelism& parallelism) {
  return parallelism.run ? std::max<size_t>(parallelism.workers, 1) : 1;
}

// Runs task(0) .. task(parts - 1) on the task runner, or one after the other on the calling
// thread when there is one part or no runner.
inline void RunParts(const Parallelism& parallelism, size_t parts,
                     const std::function<void(size_t)>& task) {
  if (parts > 1 && parallelism.run) {
    parallelism.run(parts, task);
  } else {
    for (size_t part = 0; part < parts; ++part) task(part);
  }
}

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_INTERNAL_PARALLELISM_H_
