// Plain value types shared by the trainer, the tokenizer and the file formats: those of the
// public API (TokenId, Merge, Merges, Vocab, IdLayout, Pattern), which the internals use as is.
#ifndef BPEFORGE_CORE_INTERNAL_TYPES_H_
#define BPEFORGE_CORE_INTERNAL_TYPES_H_

#include "bpeforge/types.h"

#endif  // BPEFORGE_CORE_INTERNAL_TYPES_H_
