// Trains on a small text, from the text and from its count file, saves, loads and round-trips
// it through the installed library.
#include <cstdio>
#include <fstream>
#include <string>

#include "bpeforge/bpeforge.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  std::string text;
  for (int i = 0; i < 200; ++i) text += "the cat sat on the mat<|endoftext|>a dog ran by ";
  std::ofstream(dir + "/corpus.txt") << text;

  bpeforge::TrainOptions options;
  options.vocab_size = 300;
  options.special_tokens = {"<|endoftext|>"};
  auto trained = bpeforge::Train({dir + "/corpus.txt"}, options);
  if (!trained.ok()) return std::fprintf(stderr, "%s\n", trained.status().ToString().c_str()), 1;
  if (auto s = bpeforge::SaveTokenizer(trained->model, dir + "/tok"); !s.ok()) return 1;
  // The same merges from a count file: the public counting entry points link.
  auto counts = bpeforge::CountFiles::Count({dir + "/corpus.txt"}, options, dir + "/c.counts");
  if (!counts.ok()) return std::fprintf(stderr, "%s\n", counts.status().ToString().c_str()), 1;
  auto from_counts = counts->Train(options);
  if (!from_counts.ok() || from_counts->model.merges != trained->model.merges) return 1;
  auto tok = bpeforge::Tokenizer::Load(dir + "/tok");
  if (!tok.ok()) return std::fprintf(stderr, "%s\n", tok.status().ToString().c_str()), 1;
  const auto ids = tok->Encode(text);
  auto back = tok->Decode(ids);
  if (!back.ok() || *back != text) return 1;
  std::printf("ok: %zu merges, %zu ids\n", trained->model.merges.size(), ids.size());
  return 0;
}
