#include "bench/corpus_generator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace bpeforge::internal::bench {
namespace {

constexpr std::string_view kEndOfText = "\n<|endoftext|>\n";

// ------------------------------------------------------------------ randomness

uint64_t Mix64(uint64_t x) {  // the splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// xoshiro256++: fast, and good enough that the text shows no visible patterns.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& w : s_) {
      seed = Mix64(seed);
      w = seed;
    }
  }
  uint64_t Next() {
    const uint64_t result = Rotl(s_[0] + s_[3], 23) + s_[0];
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n) by multiply-shift; the bias (n / 2^32) is irrelevant here.
  uint32_t Below(uint32_t n) { return static_cast<uint32_t>(((Next() >> 32) * n) >> 32); }
  uint32_t Range(uint32_t lo, uint32_t hi) { return lo + Below(hi - lo + 1); }  // [lo, hi]
  bool PerMille(uint32_t p) { return Below(1000) < p; }
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // A number drawn ahead of its use, so that a sampler can prefetch what it will need.
  uint64_t lookahead = 0;

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<uint64_t, 4> s_;
};

// Walker/Vose alias table: O(1) sampling from a fixed discrete distribution with one random
// number and two array reads, which keeps Zipf sampling off the profile.
class AliasTable {
 public:
  explicit AliasTable(const std::vector<double>& weights) : n_(weights.size()), table_(n_) {
    double sum = 0;
    for (double w : weights) sum += w;
    std::vector<double> p(n_);
    std::vector<uint32_t> small, large;
    for (size_t i = 0; i < n_; ++i) {
      p[i] = weights[i] * static_cast<double>(n_) / sum;
      (p[i] < 1.0 ? small : large).push_back(static_cast<uint32_t>(i));
    }
    while (!small.empty() && !large.empty()) {
      const uint32_t s = small.back();
      small.pop_back();
      const uint32_t l = large.back();
      table_[s] = {ToThreshold(p[s]), l};
      p[l] -= 1.0 - p[s];
      if (p[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (uint32_t i : small) table_[i] = {std::numeric_limits<uint32_t>::max(), i};  // rounding
    for (uint32_t i : large) table_[i] = {std::numeric_limits<uint32_t>::max(), i};
  }
  // Branch-free: the comparison is a coin flip the predictor cannot learn.
  uint32_t Sample(Rng& rng) const {
    const uint64_t r = rng.Next();
    const auto i = static_cast<uint32_t>(((r >> 32) * n_) >> 32);
    const Entry e = table_[i];
    const uint32_t keep = 0u - static_cast<uint32_t>(static_cast<uint32_t>(r) < e.threshold);
    return (i & keep) | (e.alias & ~keep);
  }
  size_t size() const { return n_; }
  uint32_t threshold(size_t i) const { return table_[i].threshold; }
  uint32_t alias(size_t i) const { return table_[i].alias; }

 private:
  struct Entry {
    uint32_t threshold;
    uint32_t alias;
  };
  static uint32_t ToThreshold(double p) {
    return static_cast<uint32_t>(std::min(p * 4294967296.0, 4294967295.0));
  }
  uint64_t n_;
  std::vector<Entry> table_;
};

std::vector<double> ZipfWeights(size_t n, double s, double q = 0) {
  std::vector<double> w(n);
  for (size_t r = 0; r < n; ++r) w[r] = std::pow(static_cast<double>(r) + 1.0 + q, -s);
  return w;
}

// ------------------------------------------------------------------ text building

// Short strings are copied as one fixed-size 16-byte move: much cheaper than a memcpy call
// for the 2-10 byte words that make up the text. The source must then be readable for 16
// bytes (StringTable pads its pool for this), and the buffer keeps kSlack spare bytes.
constexpr size_t kCopy = 16;
constexpr size_t kSlack = 64;

// An append-only byte buffer; cheaper than std::string::append in the hot loop because the
// capacity check is the only branch.
class Out {
 public:
  explicit Out(size_t capacity) : buf_(capacity + kSlack, '\0') {}
  void Append(const char* p, size_t n) {
    Reserve(n);
    std::memcpy(buf_.data() + pos_, p, n);
    pos_ += n;
  }
  void Append(std::string_view s) { Append(s.data(), s.size()); }
  // Like Append, for strings whose storage is readable for at least kCopy bytes.
  void AppendPadded(std::string_view s) {
    Reserve(s.size());
    if (s.size() <= kCopy) {
      std::memcpy(buf_.data() + pos_, s.data(), kCopy);
    } else {
      std::memcpy(buf_.data() + pos_, s.data(), s.size());
    }
    pos_ += s.size();
  }
  void Push(char c) {
    Reserve(1);
    buf_[pos_++] = c;
  }
  // Writes a non-negative integer in decimal.
  void Number(uint64_t v) {
    char tmp[24];
    char* e = tmp + sizeof(tmp);
    char* p = e;
    do {
      *--p = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    Append(p, static_cast<size_t>(e - p));
  }
  // Writes v with exactly `digits` digits (leading zeros).
  void Padded(uint64_t v, int digits) {
    char tmp[24];
    for (int i = digits - 1; i >= 0; --i) {
      tmp[i] = static_cast<char>('0' + v % 10);
      v /= 10;
    }
    Append(tmp, static_cast<size_t>(digits));
  }
  // Writes v with thousands separators: 1,234,567.
  void Grouped(uint64_t v) {
    if (v < 1000) {
      Number(v);
      return;
    }
    Grouped(v / 1000);
    Push(',');
    Padded(v % 1000, 3);
  }
  void Utf8(char32_t cp) {
    char tmp[4];
    size_t n;
    if (cp < 0x80) {
      tmp[0] = static_cast<char>(cp);
      n = 1;
    } else if (cp < 0x800) {
      tmp[0] = static_cast<char>(0xC0 | (cp >> 6));
      tmp[1] = static_cast<char>(0x80 | (cp & 0x3F));
      n = 2;
    } else if (cp < 0x10000) {
      tmp[0] = static_cast<char>(0xE0 | (cp >> 12));
      tmp[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      tmp[2] = static_cast<char>(0x80 | (cp & 0x3F));
      n = 3;
    } else {
      tmp[0] = static_cast<char>(0xF0 | (cp >> 18));
      tmp[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      tmp[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      tmp[3] = static_cast<char>(0x80 | (cp & 0x3F));
      n = 4;
    }
    Append(tmp, n);
  }
  // Upper-cases the ASCII letter at `pos` (words that start with another byte stay as is).
  void CapitalizeAt(size_t pos) {
    if (pos < pos_) buf_[pos] = absl::ascii_toupper(static_cast<unsigned char>(buf_[pos]));
  }
  void UpperFrom(size_t pos) {
    for (size_t i = pos; i < pos_; ++i) {
      buf_[i] = absl::ascii_toupper(static_cast<unsigned char>(buf_[i]));
    }
  }
  // Replaces the straight double quotes written since `pos` by alternating curly ones.
  void CurlyQuotesFrom(size_t pos) {
    std::string tail = buf_.substr(pos, pos_ - pos);
    pos_ = pos;
    bool open = true;
    for (char ch : tail) {
      if (ch == '"') {
        Append(open ? "\u201C" : "\u201D");
        open = !open;
      } else {
        Push(ch);
      }
    }
  }
  size_t size() const { return pos_; }
  std::string Take() {
    buf_.resize(pos_);
    return std::move(buf_);
  }

 private:
  void Reserve(size_t n) {
    if (pos_ + n + kSlack > buf_.size()) buf_.resize(std::max(buf_.size() * 2, pos_ + n + kSlack));
  }
  std::string buf_;
  size_t pos_ = 0;
};

// Many short strings in one pool, padded at the end so that Out::AppendPadded may read
// kCopy bytes from any of them.
class StringTable {
 public:
  StringTable() : pool_(kCopy, '\0') {}
  void Add(std::string_view s) {
    pool_.resize(pool_.size() - kCopy);
    spans_.push_back({static_cast<uint32_t>(pool_.size()), static_cast<uint32_t>(s.size())});
    pool_.append(s);
    pool_.append(kCopy, '\0');
  }
  std::string_view operator[](size_t i) const {
    return std::string_view(pool_.data() + spans_[i].offset, spans_[i].length);
  }
  size_t size() const { return spans_.size(); }

 private:
  struct Span {
    uint32_t offset;
    uint32_t length;
  };
  std::string pool_;
  std::vector<Span> spans_;
};

// Pronounceable made-up words: each syllable is onset + nucleus + coda, picked by bits of a
// hash, so the word for a given hash is always the same and needs no table. Syllables sit in
// 16-byte slots (15 bytes of text and the length) so one load fetches one.
class SyllableWords {
 public:
  SyllableWords(const std::vector<std::string_view>& onsets,
                const std::vector<std::string_view>& nuclei,
                const std::vector<std::string_view>& codas) {
    for (auto o : onsets) {
      for (auto n : nuclei) {
        for (auto c : codas) {
          const std::string syllable = std::string(o).append(n).append(c);
          if (syllable.size() >= kCopy) std::abort();  // the tables below are too long
          const size_t at = slots_.size();
          slots_.resize(at + kCopy, '\0');
          std::memcpy(slots_.data() + at, syllable.data(), syllable.size());
          slots_[at + kCopy - 1] = static_cast<char>(syllable.size());
        }
      }
    }
    n_ = slots_.size() / kCopy;
  }
  // Appends the word for hash `h` with `syllables` syllables; 16 bits of h per syllable
  // (scaled by multiply-shift, no division), re-mixed after four.
  void Append(uint64_t h, int syllables, Out& out) const {
    for (int i = 0; i < syllables; ++i) {
      if (i == 4) h = Mix64(h);
      const char* slot = slots_.data() + (((h & 0xFFFF) * n_) >> 16) * kCopy;
      out.AppendPadded(std::string_view(slot, static_cast<size_t>(slot[kCopy - 1])));
      h = (h >> 16) | (h << 48);
    }
  }

 private:
  std::string slots_;
  uint64_t n_ = 0;
};

const std::vector<std::string_view>& AsciiOnsets() {
  static const auto* v = new std::vector<std::string_view>{
      "b",  "c",  "d",  "f",  "g",  "h",  "j",  "k",  "l",  "m",  "n",  "p",  "r",  "s",
      "t",  "v",  "w",  "z",  "br", "cr", "dr", "fr", "gr", "pr", "tr", "bl", "cl", "fl",
      "gl", "pl", "sl", "st", "sp", "sc", "sh", "ch", "th", "wh", "qu", "sn"};
  return *v;
}
const std::vector<std::string_view>& AsciiNuclei() {
  static const auto* v = new std::vector<std::string_view>{"a",  "e",  "i",  "o",  "u", "ai",
                                                           "ea", "ee", "io", "ou", "y", "oa"};
  return *v;
}
const std::vector<std::string_view>& AsciiCodas() {
  static const auto* v = new std::vector<std::string_view>{
      "", "", "", "n", "r", "s", "t", "l", "m", "nd", "nt", "st", "ck", "ng", "rt", "x"};
  return *v;
}

// ================================================================== stories

// Slots a story template may contain. Story-wide ones (main character, friend, pronouns,
// object) stay fixed within a story, which keeps the text coherent; the others are drawn
// for every use.
enum class Slot : uint8_t {
  kLiteral,
  kName,      // {N}  main character
  kFriend,    // {F}
  kKid,       // {kid} girl / boy
  kHe,        // {he}
  kHeCap,     // {He}
  kHis,       // {his}
  kHisCap,    // {His}
  kHim,       // {him}
  kHimself,   // {himself}
  kObject,    // {O}  the story's object
  kAnimal,    // {an}
  kAAnimal,   // {aan} a/an + animal
  kNoun,      // {n}
  kNouns,     // {ns} plural noun
  kAdj,       // {A}
  kAAdj,      // {aA} a/an + adjective
  kColor,     // {c}
  kFeeling,   // {f}
  kPlace,     // {P}
  kVerb,      // {v}
  kVerbPast,  // {vd}
  kFood,      // {food}
  kExclaim,   // {X}
  kTime,      // {T}
  kNumber,    // {num}
  kRelative,  // {rel} mom / dad / grandma ...
};

struct Piece {
  Slot slot;
  uint32_t literal;  // for kLiteral: index into the model's literal table
};
using Template = std::vector<Piece>;

struct NamedSlot {
  std::string_view name;
  Slot slot;
};
constexpr NamedSlot kSlotNames[] = {
    {"N", Slot::kName},     {"F", Slot::kFriend},     {"kid", Slot::kKid},
    {"he", Slot::kHe},      {"He", Slot::kHeCap},     {"his", Slot::kHis},
    {"His", Slot::kHisCap}, {"him", Slot::kHim},      {"himself", Slot::kHimself},
    {"O", Slot::kObject},   {"an", Slot::kAnimal},    {"aan", Slot::kAAnimal},
    {"n", Slot::kNoun},     {"ns", Slot::kNouns},     {"A", Slot::kAdj},
    {"aA", Slot::kAAdj},    {"c", Slot::kColor},      {"f", Slot::kFeeling},
    {"P", Slot::kPlace},    {"v", Slot::kVerb},       {"vd", Slot::kVerbPast},
    {"food", Slot::kFood},  {"X", Slot::kExclaim},    {"T", Slot::kTime},
    {"num", Slot::kNumber}, {"rel", Slot::kRelative},
};

Template Compile(std::string_view text, StringTable* literals) {
  Template t;
  while (!text.empty()) {
    const size_t open = text.find('{');
    if (open != 0) {
      const size_t n = std::min(open, text.size());
      t.push_back({Slot::kLiteral, static_cast<uint32_t>(literals->size())});
      literals->Add(text.substr(0, n));
      text.remove_prefix(n);
      continue;
    }
    const size_t close = text.find('}');
    const std::string_view name = text.substr(1, close - 1);
    Slot slot = Slot::kLiteral;
    for (const NamedSlot& s : kSlotNames) {
      if (s.name == name) slot = s.slot;
    }
    if (slot == Slot::kLiteral) std::abort();  // a typo in the tables below
    t.push_back({slot, 0});
    text.remove_prefix(close + 1);
  }
  return t;
}

std::vector<Template> CompileAll(const std::vector<std::string_view>& texts,
                                 StringTable* literals) {
  std::vector<Template> out;
  for (auto t : texts) out.push_back(Compile(t, literals));
  return out;
}

// Verbs as (base, past) pairs.
constexpr std::pair<std::string_view, std::string_view> kVerbs[] = {
    {"play", "played"},       {"run", "ran"},          {"jump", "jumped"},     {"look", "looked"},
    {"help", "helped"},       {"find", "found"},       {"see", "saw"},         {"eat", "ate"},
    {"go", "went"},           {"walk", "walked"},      {"sing", "sang"},       {"dance", "danced"},
    {"swim", "swam"},         {"climb", "climbed"},    {"fly", "flew"},        {"draw", "drew"},
    {"read", "read"},         {"build", "built"},      {"share", "shared"},    {"hug", "hugged"},
    {"smile", "smiled"},      {"laugh", "laughed"},    {"cry", "cried"},       {"throw", "threw"},
    {"catch", "caught"},      {"hide", "hid"},         {"seek", "sought"},     {"bake", "baked"},
    {"paint", "painted"},     {"clean", "cleaned"},    {"fix", "fixed"},       {"open", "opened"},
    {"close", "closed"},      {"explore", "explored"}, {"listen", "listened"}, {"wait", "waited"},
    {"sleep", "slept"},       {"push", "pushed"},      {"pull", "pulled"},     {"carry", "carried"},
    {"kick", "kicked"},       {"ride", "rode"},        {"race", "raced"},      {"count", "counted"},
    {"whisper", "whispered"}, {"shout", "shouted"},    {"learn", "learned"},   {"try", "tried"},
    {"give", "gave"},         {"take", "took"},        {"make", "made"},       {"dig", "dug"},
    {"splash", "splashed"},   {"bounce", "bounced"}};

template <size_t N>
std::vector<std::string_view> Column(const std::pair<std::string_view, std::string_view> (&a)[N],
                                     int column) {
  std::vector<std::string_view> v;
  for (const auto& p : a) v.push_back(column == 0 ? p.first : p.second);
  return v;
}

class StoriesModel {
 public:
  StoriesModel();
  void Story(Rng& rng, Out& out) const;

 private:
  struct Cast {
    std::string_view name, friend_name, kid, he, he_cap, his, his_cap, him, himself, object;
  };
  struct WordClass {
    StringTable common;
    AliasTable common_dist;
    explicit WordClass(const std::vector<std::string_view>& words)
        : common_dist(ZipfWeights(words.size(), 0.9, 2.0)) {
      for (auto w : words) common.Add(w);
    }
    uint32_t Index(Rng& rng) const { return common_dist.Sample(rng); }
    std::string_view Pick(Rng& rng) const { return common[common_dist.Sample(rng)]; }
  };

  std::string_view Noun(Rng& rng) const {
    return rng.PerMille(40) ? rare_nouns_[rare_dist_.Sample(rng)] : nouns_.Pick(rng);
  }
  std::string_view Adjective(Rng& rng) const {
    return rng.PerMille(25) ? rare_adjs_[rare_dist_.Sample(rng)] : adjectives_.Pick(rng);
  }
  std::string_view Name(Rng& rng) const {
    return rng.PerMille(60) ? rare_names_[rare_dist_.Sample(rng)] : names_.Pick(rng);
  }
  static void Article(std::string_view word, Out& out) {
    static constexpr char kA[kCopy] = "a ";
    static constexpr char kAn[kCopy] = "an ";
    const bool vowel = !word.empty() && std::strchr("aeiou", word[0]) != nullptr;
    out.AppendPadded(vowel ? std::string_view(kAn, 3) : std::string_view(kA, 2));
    out.AppendPadded(word);
  }
  void Render(const Template& t, const Cast& cast, Rng& rng, Out& out) const;

  WordClass names_, animals_, nouns_, plurals_, adjectives_, colors_, feelings_, places_, foods_,
      exclaims_, times_, numbers_, relatives_;
  WordClass verbs_, verbs_past_;  // the same index in both: base and past form
  StringTable rare_nouns_, rare_adjs_, rare_names_;
  StringTable pronouns_;  // girl she She her Her her herself, then the same for boy
  StringTable literals_;
  AliasTable rare_dist_;
  std::vector<Template> openings_, narration_, dialogue_, endings_;
};

StoriesModel::StoriesModel()
    : names_({"Lily", "Tim",   "Ben",    "Sue",   "Max",   "Mia",     "Tom",   "Anna",  "Sam",
              "Lucy", "Jack",  "Emma",   "Sara",  "Timmy", "Bob",     "Amy",   "Jill",  "Joe",
              "Kim",  "Mark",  "Zoe",    "Ella",  "Leo",   "Molly",   "Jake",  "Rosie", "Billy",
              "Nina", "Oscar", "Grace",  "Finn",  "Ruby",  "Henry",   "Daisy", "Peter", "Ann",
              "Lila", "Spot",  "Fluffy", "Buddy", "Kitty", "Mittens", "Pip",   "Bella", "Luna"}),
      animals_({"dog",    "cat",      "bird",    "bunny",  "bear",    "frog",      "duck",
                "fish",   "mouse",    "lion",    "owl",    "horse",   "cow",       "pig",
                "fox",    "puppy",    "kitten",  "turtle", "bee",     "butterfly", "squirrel",
                "monkey", "elephant", "tiger",   "rabbit", "sheep",   "snake",     "ant",
                "whale",  "dolphin",  "giraffe", "dragon", "unicorn", "ladybug",   "goat",
                "deer",   "chicken",  "worm"}),
      nouns_({"ball",    "toy",    "tree",   "box",     "car",        "book",    "flower", "hat",
              "kite",    "boat",   "cake",   "doll",    "truck",      "apple",   "rock",   "stick",
              "shell",   "star",   "cup",    "bag",     "key",        "door",    "window", "bed",
              "chair",   "table",  "bike",   "drum",    "crayon",     "picture", "robot",  "train",
              "balloon", "leaf",   "sock",   "shoe",    "coat",       "blanket", "bowl",   "spoon",
              "jar",     "rope",   "ring",   "basket",  "map",        "bell",    "bucket", "puzzle",
              "teddy",   "wagon",  "swing",  "slide",   "sandcastle", "cookie",  "pillow", "lamp",
              "clock",   "mirror", "button", "feather", "nest",       "pond",    "hill",   "cloud",
              "rainbow", "sun",    "moon",   "tent",    "gift",       "letter",  "song"}),
      plurals_({"toys",   "flowers", "apples",  "cookies",  "friends", "birds", "stars",
                "leaves", "rocks",   "shells",  "balloons", "books",   "cars",  "trees",
                "blocks", "bugs",    "berries", "eggs",     "crayons", "sticks"}),
      adjectives_({"big",       "little", "small",    "happy",   "sad",    "good",     "nice",
                   "pretty",    "old",    "new",      "funny",   "shiny",  "soft",     "tall",
                   "kind",      "brave",  "fast",     "slow",    "loud",   "quiet",    "dark",
                   "bright",    "warm",   "cold",     "wet",     "dry",    "silly",    "special",
                   "beautiful", "scary",  "tiny",     "huge",    "clean",  "dirty",    "sweet",
                   "yummy",     "sleepy", "hungry",   "strong",  "gentle", "colorful", "fluffy",
                   "sunny",     "magic",  "smart",    "curious", "lonely", "friendly", "busy",
                   "heavy",     "light",  "long",     "round",   "sharp",  "sticky",   "smooth",
                   "fancy",     "broken", "favorite", "wild",    "cozy",   "red",      "blue"}),
      colors_({"red", "blue", "green", "yellow", "pink", "purple", "orange", "brown", "white",
               "black", "gold", "gray"}),
      feelings_({"happy", "sad",   "scared",  "excited",  "proud", "angry",   "surprised",
                 "tired", "sorry", "worried", "glad",     "upset", "curious", "shy",
                 "calm",  "brave", "grumpy",  "thankful", "bored", "jealous"}),
      places_({"park",     "forest",  "garden", "beach",  "house",   "school",
               "river",    "farm",    "town",   "yard",   "kitchen", "woods",
               "lake",     "zoo",     "store",  "field",  "sky",     "sea",
               "castle",   "cave",    "jungle", "street", "hill",    "playground",
               "backyard", "library", "room",   "meadow", "barn",    "pond"}),
      foods_({"cake",       "cookies",  "apples",  "bread", "soup",   "candy",   "ice cream",
              "pie",        "carrots",  "bananas", "pizza", "cheese", "berries", "honey",
              "sandwiches", "pancakes", "milk",    "juice", "corn",   "grapes"}),
      exclaims_({"Wow", "Oh no", "Look", "Yay", "Hello", "Hi", "Thank you", "Oops", "Yes", "No",
                 "Please", "Come on", "Hooray", "Help", "Sorry", "Stop", "Okay", "Oh"}),
      times_({"One day", "The next day", "Later", "Then", "After that", "Suddenly",
              "In the morning", "That night", "Soon", "After a while", "One sunny day", "Every day",
              "The next morning", "At night", "On Monday"}),
      numbers_({"two", "three", "four", "five", "six", "seven", "ten", "many", "some", "a few"}),
      relatives_({"mom", "dad", "mommy", "daddy", "grandma", "grandpa", "sister", "brother",
                  "teacher", "aunt"}),
      verbs_(Column(kVerbs, 0)),
      verbs_past_(Column(kVerbs, 1)),
      rare_dist_(ZipfWeights(8000, 1.0, 1.0)) {
  // The rare tail: made-up but pronounceable words, so a "noun" or "name" slot sometimes
  // gets a word seen only a handful of times, as real children's stories have (unusual
  // animals, places, typos).
  const SyllableWords syl(AsciiOnsets(), AsciiNuclei(), AsciiCodas());
  for (uint64_t r = 0; r < rare_dist_.size(); ++r) {
    Out w(32);
    syl.Append(Mix64(r * 3 + 0x51), 2 + static_cast<int>(r % 2), w);
    rare_nouns_.Add(w.Take());
    Out a(32);
    syl.Append(Mix64(r * 3 + 0x52), 2, a);
    a.Append("y");
    rare_adjs_.Add(a.Take());
    Out n(32);
    syl.Append(Mix64(r * 3 + 0x53), 2, n);
    n.CapitalizeAt(0);
    rare_names_.Add(n.Take());
  }

  openings_ = CompileAll(
      {
          "Once upon a time, there was a little {kid} named {N}.",
          "Once upon a time, there was {aA} {kid} named {N}. {He} loved to {v} with {his} {O}.",
          "Once upon a time, in {aA} {P}, there lived {aan} named {N}.",
          "{N} was {aA} {kid} who loved to {v}.",
          "One day, {aA} {kid} named {N} went to the {P} with {his} {rel}.",
          "There once was {aan} called {N}. {He} lived in {aA} {P} with {his} family.",
          "{N} and {F} were best friends. They liked to {v} in the {P} every day.",
          "Once upon a time, there was {aA} {O}. It belonged to a {kid} named {N}.",
          "{T}, {N} woke up and looked out the window. The sky was {c}.",
      },
      &literals_);
  narration_ = CompileAll(
      {
          "{He} liked to play with {his} {A} {O} every day.",
          "{T}, {N} saw {aan} near the {P}.",
          "{N} {vd} with {F} in the {P}.",
          "The {an} was very {f}.",
          "{He} wanted to {v} with the {O}, but it was too {A}.",
          "{N} felt {f} and ran to the {P}.",
          "They {vd} together and had a lot of fun.",
          "{T}, the sun was shining and the birds were singing.",
          "{N} found {aA} {n} under a tree.",
          "{He} picked it up and showed it to {F}.",
          "The {an} didn't want to {v}. It was {f}.",
          "{N} saw {num} {ns} on the ground.",
          "{He} ate some {food} and drank some milk.",
          "{N} learned that it is good to share.",
          "{N}'s {O} was {c} and {A}.",
          "{He} ran to {his} {rel} and gave {him} a big hug.",
          "They looked for the {O} everywhere, in the {P} and under the bed.",
          "Suddenly, {aan} came and took the {O}!",
          "{N} was sad. {He} started to cry.",
          "Then {F} had an idea.",
          "They played in the {P} until it was dark.",
          "The {A} {an} jumped over the {n} and ran away.",
          "{N} was very {f} because {he} {vd} all by {himself}.",
          "It was {aA} day, and everyone was {f}.",
          "{N} did not know what to do.",
          "{He} {vd} the {n} and put it in {his} {O}.",
          "{His} {rel} made {food} for lunch. It was {A}.",
          "The {P} was {A} and full of {ns}.",
          "{N} and {F} went to the {P} to {v}.",
          "{He} looked at the {c} {n} and smiled.",
          "The {an} had {aA} {n}. It wanted to {v} with it.",
          "{N} thought about it for a moment.",
          "Every day, {N} would {v} and {v} with {his} friends.",
          "But the {O} was stuck in the {n}.",
          "{F} came over to see what was happening.",
      },
      &literals_);
  dialogue_ = CompileAll(
      {
          "{His} {rel} said, \"{X}, {N}! Don't {v} the {O}.\"",
          "{F} smiled and said, \"It's so {A}!\"",
          "\"Can I {v} with you?\" asked {F}.",
          "\"Yes, you can,\" said {N}. \"Let's {v} together!\"",
          "\"I'm {f},\" {N} said. \"I don't want to {v}.\"",
          "\"{X}!\" said {N}. \"Look at the {A} {n}!\"",
          "\"We can't {v} now,\" said {F}. \"It's time to go home.\"",
          "\"What's wrong?\" asked the {an}. \"I lost my {O},\" said {N}.",
          "\"Thank you, {F}! You're my best friend,\" said {N}.",
          "{His} {rel} said, \"You're a good {kid}, {N}.\"",
          "\"I'll help you,\" said {F}. \"We'll find it together.\"",
          "\"Why are you {f}?\" {N} asked the {an}.",
          "\"{X}, I'm sorry,\" said {N}. \"I didn't mean to {v} your {n}.\"",
          "\"Where is my {O}?\" {N} asked. \"I can't find it!\"",
          "The {an} said, \"Don't be {f}. I won't hurt you.\"",
          "\"Do you want to {v}?\" asked {N}. \"Okay!\" said {F}.",
          "\"That's {aA} {n},\" said {F}. \"Can I have it?\"",
          "\"{X}! It's {aA} {an}!\" {N} shouted.",
      },
      &literals_);
  endings_ = CompileAll(
      {
          "From that day on, {N} and {F} were best friends.",
          "{N} was very happy. {He} loved {his} {A} {O}.",
          "And they all lived happily ever after.",
          "{N} learned to always be kind to others.",
          "{N} smiled and hugged {his} {O}. {He} was happy again.",
          "After that, {N} never forgot to {v}.",
          "{N} and {F} played with the {O} all day long.",
          "The {an} said thank you and went back to the {P}.",
      },
      &literals_);
  for (std::string_view w : {"girl", "she", "She", "her", "Her", "her", "herself", "boy", "he",
                             "He", "his", "His", "him", "himself"}) {
    pronouns_.Add(w);
  }
}

void StoriesModel::Render(const Template& t, const Cast& c, Rng& rng, Out& out) const {
  for (const Piece& p : t) {
    switch (p.slot) {
      case Slot::kLiteral:
        out.AppendPadded(literals_[p.literal]);
        break;
      case Slot::kName:
        out.AppendPadded(c.name);
        break;
      case Slot::kFriend:
        out.AppendPadded(c.friend_name);
        break;
      case Slot::kKid:
        out.AppendPadded(c.kid);
        break;
      case Slot::kHe:
        out.AppendPadded(c.he);
        break;
      case Slot::kHeCap:
        out.AppendPadded(c.he_cap);
        break;
      case Slot::kHis:
        out.AppendPadded(c.his);
        break;
      case Slot::kHisCap:
        out.AppendPadded(c.his_cap);
        break;
      case Slot::kHim:
        out.AppendPadded(c.him);
        break;
      case Slot::kHimself:
        out.AppendPadded(c.himself);
        break;
      case Slot::kObject:
        out.AppendPadded(c.object);
        break;
      case Slot::kAnimal:
        out.AppendPadded(animals_.Pick(rng));
        break;
      case Slot::kAAnimal:
        Article(animals_.Pick(rng), out);
        break;
      case Slot::kNoun:
        out.AppendPadded(Noun(rng));
        break;
      case Slot::kNouns:
        out.AppendPadded(plurals_.Pick(rng));
        break;
      case Slot::kAdj:
        out.AppendPadded(Adjective(rng));
        break;
      case Slot::kAAdj:
        Article(Adjective(rng), out);
        break;
      case Slot::kColor:
        out.AppendPadded(colors_.Pick(rng));
        break;
      case Slot::kFeeling:
        out.AppendPadded(feelings_.Pick(rng));
        break;
      case Slot::kPlace:
        out.AppendPadded(places_.Pick(rng));
        break;
      case Slot::kVerb:
        out.AppendPadded(verbs_.Pick(rng));
        break;
      case Slot::kVerbPast:
        out.AppendPadded(verbs_past_.common[verbs_.Index(rng)]);
        break;
      case Slot::kFood:
        out.AppendPadded(foods_.Pick(rng));
        break;
      case Slot::kExclaim:
        out.AppendPadded(exclaims_.Pick(rng));
        break;
      case Slot::kTime:
        out.AppendPadded(times_.Pick(rng));
        break;
      case Slot::kNumber:
        out.AppendPadded(numbers_.Pick(rng));
        break;
      case Slot::kRelative:
        out.AppendPadded(relatives_.Pick(rng));
        break;
    }
  }
}

void StoriesModel::Story(Rng& rng, Out& out) const {
  const size_t start = out.size();
  Cast c;
  c.name = Name(rng);
  do {
    c.friend_name = Name(rng);
  } while (c.friend_name == c.name);
  const size_t g = rng.Below(2) * 7;
  c.kid = pronouns_[g];
  c.he = pronouns_[g + 1];
  c.he_cap = pronouns_[g + 2];
  c.his = pronouns_[g + 3];
  c.his_cap = pronouns_[g + 4];
  c.him = pronouns_[g + 5];
  c.himself = pronouns_[g + 6];
  c.object = Noun(rng);

  Render(openings_[rng.Below(static_cast<uint32_t>(openings_.size()))], c, rng, out);
  const uint32_t sentences = rng.Range(4, 13);
  uint32_t in_paragraph = 1;
  for (uint32_t i = 0; i < sentences; ++i) {
    const bool talk = rng.Below(3) == 0;
    // Dialogue usually starts a new paragraph, as in the real stories.
    if ((talk && rng.Below(3) != 0) || in_paragraph >= rng.Range(2, 5)) {
      out.Append("\n\n");
      in_paragraph = 0;
    } else {
      out.Push(' ');
    }
    const auto& pool = talk ? dialogue_ : narration_;
    Render(pool[rng.Below(static_cast<uint32_t>(pool.size()))], c, rng, out);
    ++in_paragraph;
  }
  out.Append(rng.Below(2) == 0 ? "\n\n" : " ");
  Render(endings_[rng.Below(static_cast<uint32_t>(endings_.size()))], c, rng, out);
  // Some stories were typed with curly quotes, the only non-ASCII text in most of them.
  if (rng.Below(40) == 0) out.CurlyQuotesFrom(start);
  out.Append(kEndOfText);
}

// ================================================================== web

// The most frequent English words, so the head of the distribution looks like English.
constexpr std::string_view kCommonEnglish[] = {
    "the",       "of",          "and",     "to",        "a",          "in",        "is",
    "that",      "for",         "it",      "as",        "was",        "with",      "be",
    "by",        "on",          "not",     "he",        "I",          "this",      "are",
    "or",        "his",         "from",    "at",        "which",      "but",       "have",
    "an",        "had",         "they",    "you",       "were",       "their",     "one",
    "all",       "we",          "can",     "her",       "has",        "there",     "been",
    "if",        "more",        "when",    "will",      "would",      "who",       "so",
    "no",        "she",         "other",   "its",       "may",        "these",     "about",
    "them",      "than",        "some",    "time",      "into",       "only",      "do",
    "could",     "new",         "also",    "two",       "any",        "what",      "first",
    "after",     "most",        "like",    "over",      "such",       "our",       "year",
    "people",    "said",        "just",    "many",      "those",      "years",     "then",
    "out",       "up",          "get",     "make",      "us",         "how",       "state",
    "because",   "world",       "where",   "much",      "government", "it's",      "don't",
    "I'm",       "can't",       "didn't",  "doesn't",   "isn't",      "won't",     "we're",
    "they're",   "you're",      "that's",  "there's",   "I've",       "company",   "week",
    "said",      "police",      "game",    "team",      "season",     "market",    "report",
    "president", "city",        "school",  "percent",   "million",    "data",      "health",
    "water",     "money",       "public",  "power",     "system",     "group",     "work",
    "life",      "way",         "day",     "week",      "news",       "law",       "court",
    "country",   "market",      "service", "business",  "each",       "made",      "well",
    "before",    "through",     "back",    "still",     "even",       "here",      "between",
    "both",      "under",       "last",    "never",     "while",      "being",     "same",
    "another",   "know",        "take",    "see",       "come",       "think",     "look",
    "want",      "give",        "use",     "find",      "tell",       "ask",       "seem",
    "feel",      "try",         "leave",   "call",      "good",       "great",     "little",
    "own",       "old",         "right",   "big",       "high",       "different", "small",
    "large",     "next",        "early",   "young",     "important",  "few",       "long",
    "part",      "place",       "case",    "point",     "number",     "home",      "water",
    "room",      "mother",      "area",    "family",    "story",      "fact",      "month",
    "lot",       "study",       "book",    "eye",       "job",        "word",      "issue",
    "side",      "kind",        "head",    "house",     "friend",     "hour",      "game",
    "line",      "end",         "member",  "car",       "city",       "name",      "idea",
    "body",      "information", "back",    "parent",    "face",       "others",    "level",
    "office",    "door",        "health",  "person",    "art",        "war",       "history",
    "party",     "result",      "change",  "morning",   "reason",     "research",  "girl",
    "guy",       "moment",      "air",     "teacher",   "force",      "education", "should",
    "very",      "did",         "does",    "now",       "get",        "going",     "really",
    "need",      "made",        "around",  "however",   "against",    "during",    "without",
    "across",    "among",       "within",  "including", "although",   "since",     "until",
    "today",     "later",       "already", "often",     "always",     "again",     "why",
    "each",      "per",         "via",     "told",      "says",       "according", "added",
    "used",      "called",      "million", "billion",   "percent",    "online",    "video",
    "free",      "social",      "media",   "season",    "players",    "support",   "president",
    "campaign",  "election",    "former",  "police"};

class WebModel {
 public:
  WebModel();
  void Document(Rng& rng, Out& out) const;

 private:
  // Ranks below kHead are precomputed strings; the rest of the vocabulary is built on the
  // fly from the rank, so a vocabulary of millions of words costs no memory and no cache
  // misses.
  static constexpr uint32_t kHead = 1 << 13;
  static constexpr double kVocab = 1.5e6;

  //
  // Sampling a word is the hot path, so the alias table of the head and the words it can
  // return live together: entry i is 32 bytes holding the threshold, the alias, and the
  // bytes of both words i and alias(i) when they fit in kInline bytes. One cache line read
  // gives the word; only the tail and long words take the slow path.
  static constexpr size_t kEntry = 32;
  static constexpr size_t kInline = 11;
  static constexpr uint8_t kLongWord = 0xFE;  // build it from the rank
  static constexpr uint8_t kTailWord = 0xFF;  // draw a rank from the tail

  void SynthWord(uint64_t rank, Out& out) const;
  void HeadWord(uint64_t rank, Out& out) const {
    if (rank < std::size(kCommonEnglish)) {
      out.Append(kCommonEnglish[rank]);
    } else {
      SynthWord(rank, out);
    }
  }
  static uint32_t HeadIndex(uint64_t r) {
    return static_cast<uint32_t>(((r >> 32) * kHeadEntries) >> 32);
  }
  void Word(Rng& rng, Out& out) const {
    // The random number for the next word is drawn now and its table entry prefetched, so
    // the (L2) load overlaps with writing this word instead of stalling the next one.
    const uint64_t r = rng.lookahead;
    rng.lookahead = rng.Next();
    __builtin_prefetch(head_.data() + HeadIndex(rng.lookahead) * kEntry);
    const uint32_t i = HeadIndex(r);
    const char* e = head_.data() + i * kEntry;
    uint32_t threshold, alias;
    std::memcpy(&threshold, e, 4);
    std::memcpy(&alias, e + 4, 4);
    const bool keep = static_cast<uint32_t>(r) < threshold;
    const size_t k = keep ? 0 : 1;
    const auto len = static_cast<uint8_t>(e[8 + k]);
    if (len <= kInline) {
      out.AppendPadded(std::string_view(e + 10 + k * kInline, len));
    } else if (len == kLongWord) {
      HeadWord(keep ? i : alias, out);
    } else {
      // Continuous Zipf (s = 1) over [kHead, kVocab): inverse CDF is kHead * (kVocab/kHead)^u.
      SynthWord(static_cast<uint64_t>(kHead * std::exp(rng.Unit() * log_tail_ratio_)), out);
    }
  }
  static constexpr uint32_t kHeadEntries = kHead + 1;  // ranks, and one for the tail
  void Identifier(Rng& rng, Out& out) const;
  void NumberForm(Rng& rng, Out& out) const;
  void Url(Rng& rng, Out& out) const;
  void Email(Rng& rng, Out& out) const;
  void Sentence(Rng& rng, Out& out) const;
  void Prose(Rng& rng, Out& out) const;
  void List(Rng& rng, Out& out) const;
  void Code(Rng& rng, Out& out) const;
  void Foreign(Rng& rng, Out& out) const;
  void Emoji(Rng& rng, Out& out) const {
    out.Utf8(emoji_[emoji_dist_.Sample(rng)]);
    if (rng.Below(4) == 0) out.Utf8(emoji_[emoji_dist_.Sample(rng)]);
  }

  SyllableWords ascii_, accented_, cyrillic_, greek_;
  std::string head_;  // kHeadEntries entries of kEntry bytes, then padding
  double log_tail_ratio_;
  std::vector<char32_t> arabic_letters_;
  std::vector<char32_t> cjk_;
  AliasTable cjk_dist_;
  AliasTable foreign_dist_;  // word ranks in the other scripts
  std::vector<char32_t> emoji_;
  AliasTable emoji_dist_;
  std::vector<std::string_view> tlds_, months_, units_, keywords_;
};

WebModel::WebModel()
    : ascii_(AsciiOnsets(), AsciiNuclei(), AsciiCodas()),
      accented_({"b", "d", "f", "g", "l", "m", "n", "p", "r", "s", "t", "v", "ñ", "ç", "ß"},
                {"é", "è", "ê", "ë", "ü", "ö", "ä", "á", "í", "ó", "ú", "å", "ø", "a", "e", "o"},
                {"", "n", "r", "s", "t", "l"}),
      cyrillic_({"б", "в", "г", "д", "ж", "з", "к", "л", "м", "н", "п",
                 "р", "с", "т", "ф", "х", "ч", "ш", "щ", "ц", ""},
                {"а", "е", "и", "о", "у", "ы", "я", "ю", "ё", "э"},
                {"", "", "н", "й", "в", "т", "р", "сть", "л", "м", "к"}),
      greek_({"β", "γ", "δ", "θ", "κ", "λ", "μ", "ν", "π", "ρ", "σ", "τ", "φ", "χ", "ξ", ""},
             {"α", "ε", "η", "ι", "ο", "υ", "ω", "ά", "έ", "ί", "ό", "ή", "ύ"},
             {"", "", "ς", "ν", "ρ", "σ"}),
      log_tail_ratio_(std::log(kVocab / kHead)),
      cjk_dist_(ZipfWeights(3000, 1.0, 5.0)),
      foreign_dist_(ZipfWeights(200000, 1.0, 3.0)),
      emoji_({0x1F600, 0x1F602, 0x1F923, 0x1F60A, 0x1F60D, 0x1F64F, 0x1F44D, 0x1F525,
              0x1F389, 0x2764,  0x2728,  0x1F4AF, 0x1F680, 0x1F914, 0x1F62D, 0x1F60E,
              0x1F4A9, 0x1F440, 0x1F4F8, 0x1F3B5, 0x1F31F, 0x2705,  0x274C,  0x26A1,
              0x1F308, 0x1F355, 0x1F1FA, 0x1F44F, 0x1F622, 0x1F631}),
      emoji_dist_(ZipfWeights(30, 1.0, 1.0)),
      tlds_({"com", "org", "net", "io", "co", "uk", "de", "ru", "edu", "gov", "info", "fr"}),
      months_({"January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December"}),
      units_({"km", "kg", "mg", "GHz", "MB", "GB", "mm", "cm", "m", "lbs", "ft", "mph", "px", "ms",
              "K", "x"}),
      keywords_({"return", "if",   "for",    "while",  "const", "let",   "var",    "def",   "class",
                 "import", "from", "self",   "this",   "null",  "None",  "true",   "false", "new",
                 "int",    "void", "static", "public", "async", "await", "struct", "fn"}) {
  std::vector<double> weights = ZipfWeights(kHead, 1.0, 2.7);
  weights.push_back(log_tail_ratio_);  // the mass of 1/r over [kHead, kVocab)
  const AliasTable dist(weights);
  std::vector<std::string> words;
  for (uint64_t r = 0; r < kHead; ++r) {
    Out w(32);
    HeadWord(r, w);
    words.push_back(w.Take());
  }
  head_.assign(kHeadEntries * kEntry + kEntry, '\0');
  for (uint32_t i = 0; i < kHeadEntries; ++i) {
    char* e = head_.data() + i * kEntry;
    const uint32_t threshold = dist.threshold(i);
    const uint32_t alias = dist.alias(i);
    std::memcpy(e, &threshold, 4);
    std::memcpy(e + 4, &alias, 4);
    const uint32_t ranks[2] = {i, alias};
    for (size_t k = 0; k < 2; ++k) {
      if (ranks[k] == kHead) {
        e[8 + k] = static_cast<char>(kTailWord);
      } else if (words[ranks[k]].size() > kInline) {
        e[8 + k] = static_cast<char>(kLongWord);
      } else {
        e[8 + k] = static_cast<char>(words[ranks[k]].size());
        std::memcpy(e + 10 + k * kInline, words[ranks[k]].data(), words[ranks[k]].size());
      }
    }
  }
  for (char32_t c = 0x0628; c <= 0x064A; ++c) {
    if (c != 0x063B && (c < 0x063B || c > 0x063F) && c != 0x0640) arabic_letters_.push_back(c);
  }
  arabic_letters_.push_back(0x0627);
  // A fixed pseudo-random set of common-looking ideographs from the CJK Unified block.
  for (uint64_t i = 0; i < cjk_dist_.size(); ++i) {
    cjk_.push_back(static_cast<char32_t>(0x4E00 + Mix64(i + 0xC7C) % (0x9FA5 - 0x4E00)));
  }
}

void WebModel::SynthWord(uint64_t rank, Out& out) const {
  const uint64_t h = Mix64(rank * 0x9E3779B97F4A7C15ULL + 0xB0B);
  // Frequent words are short, rare ones long, as in natural language.
  const int syllables = rank < 2000    ? 1
                        : rank < 60000 ? 1 + static_cast<int>(h >> 63)
                                       : 2 + static_cast<int>((h >> 62) == 0);
  const size_t start = out.size();
  if (((h >> 40) & 31) == 0) {  // about 3%: a word with diacritics
    ascii_.Append(h, 1, out);
    accented_.Append(h >> 20, syllables - 1 > 0 ? syllables - 1 : 1, out);
  } else {
    ascii_.Append(h, syllables, out);
  }
  const uint32_t kind = (h >> 48) & 63;
  if (kind < 7) {
    out.CapitalizeAt(start);  // a proper name: always capitalised
  } else if (kind == 7 && rank >= 2000) {
    out.UpperFrom(start);  // an acronym-like word
  }
}

void WebModel::Identifier(Rng& rng, Out& out) const {
  switch (rng.Below(4)) {
    case 0: {  // snake_case
      Word(rng, out);
      out.Push('_');
      Word(rng, out);
      break;
    }
    case 1: {  // camelCase: one pre-token, which gives the long tail of identifiers
      Word(rng, out);
      const size_t second = out.size();
      Word(rng, out);
      out.CapitalizeAt(second);
      break;
    }
    case 2:
      out.Append(keywords_[rng.Below(static_cast<uint32_t>(keywords_.size()))]);
      return;
    default:
      Word(rng, out);
      if (rng.Below(4) == 0) out.Number(rng.Below(10));
      break;
  }
}

void WebModel::NumberForm(Rng& rng, Out& out) const {
  switch (rng.Below(14)) {
    case 0:
    case 1:  // a year
      out.Number(rng.Range(1900, 2029));
      break;
    case 2:  // a small count
      out.Number(rng.Below(101));
      break;
    case 3:  // a price
      out.Append(rng.Below(5) == 0 ? "€" : "$");
      if (rng.Below(2) == 0) {
        out.Number(rng.Below(1000));
        out.Push('.');
        out.Padded(rng.Below(100), 2);
      } else {
        out.Grouped(rng.Below(5000000));
      }
      break;
    case 4:  // a percentage
      out.Number(rng.Below(100));
      if (rng.Below(2) == 0) {
        out.Push('.');
        out.Number(rng.Below(10));
      }
      out.Push('%');
      break;
    case 5:  // a decimal
      out.Number(rng.Below(rng.Below(2) == 0 ? 10 : 1000));
      out.Push('.');
      out.Number(rng.Below(10000));
      break;
    case 6:  // a big number
      out.Grouped(rng.Below(100000000));
      break;
    case 7:  // a time of day
      out.Number(rng.Range(1, 12));
      out.Push(':');
      out.Padded(rng.Below(60), 2);
      out.Append(rng.Below(2) == 0 ? " a.m." : " p.m.");
      break;
    case 8:  // a date
      if (rng.Below(2) == 0) {
        out.Number(rng.Range(1990, 2025));
        out.Push('-');
        out.Padded(rng.Range(1, 12), 2);
        out.Push('-');
        out.Padded(rng.Range(1, 28), 2);
      } else {
        out.Append(months_[rng.Below(12)]);
        out.Push(' ');
        out.Number(rng.Range(1, 31));
        out.Append(", ");
        out.Number(rng.Range(1990, 2025));
      }
      break;
    case 9:  // a phone number
      out.Push('(');
      out.Padded(rng.Range(200, 999), 3);
      out.Append(") ");
      out.Padded(rng.Below(1000), 3);
      out.Push('-');
      out.Padded(rng.Below(10000), 4);
      break;
    case 10: {  // an ordinal
      const uint32_t n = rng.Range(1, 99);
      out.Number(n);
      const uint32_t last = n % 10;
      out.Append(n / 10 == 1 ? "th"
                 : last == 1 ? "st"
                 : last == 2 ? "nd"
                 : last == 3 ? "rd"
                             : "th");
      break;
    }
    case 11:  // a version
      out.Push('v');
      out.Number(rng.Below(10));
      out.Push('.');
      out.Number(rng.Below(20));
      out.Push('.');
      out.Number(rng.Below(10));
      break;
    case 12:  // a measurement
      out.Number(rng.Below(1000));
      if (rng.Below(3) == 0) {
        out.Push('.');
        out.Number(rng.Below(10));
      }
      out.Append(units_[rng.Below(static_cast<uint32_t>(units_.size()))]);
      break;
    default:  // an id
      out.Push('#');
      out.Number(rng.Below(1000000));
      break;
  }
}

void WebModel::Url(Rng& rng, Out& out) const {
  out.Append(rng.Below(4) == 0 ? "http://" : "https://");
  if (rng.Below(2) == 0) out.Append("www.");
  Word(rng, out);
  out.Push('.');
  out.Append(tlds_[rng.Below(static_cast<uint32_t>(tlds_.size()))]);
  for (uint32_t i = rng.Below(4); i > 0; --i) {
    out.Push('/');
    Word(rng, out);
    if (rng.Below(2) == 0) {
      out.Push('-');
      Word(rng, out);
    }
  }
  if (rng.Below(5) == 0) {
    out.Append("?id=");
    out.Number(rng.Next() % 100000000);
  } else if (rng.Below(5) == 0) {
    out.Append(".html");
  }
}

void WebModel::Email(Rng& rng, Out& out) const {
  Word(rng, out);
  if (rng.Below(2) == 0) {
    out.Push('.');
    Word(rng, out);
  }
  if (rng.Below(3) == 0) out.Number(rng.Below(100));
  out.Push('@');
  Word(rng, out);
  out.Push('.');
  out.Append(tlds_[rng.Below(static_cast<uint32_t>(tlds_.size()))]);
}

void WebModel::Sentence(Rng& rng, Out& out) const {
  const uint32_t words = rng.Range(3, 28);
  const size_t start = out.size();
  for (uint32_t i = 0; i < words; ++i) {
    if (i > 0) out.Push(' ');
    const uint32_t roll = rng.Below(1000);
    if (roll < 35) {
      NumberForm(rng, out);
    } else if (roll < 37) {
      Url(rng, out);
    } else if (roll < 38) {
      Email(rng, out);
    } else if (roll < 46) {
      const bool paren = rng.Below(2) == 0;
      out.Push(paren ? '(' : '"');
      Word(rng, out);
      if (rng.Below(2) == 0) {
        out.Push(' ');
        Word(rng, out);
      }
      out.Push(paren ? ')' : '"');
    } else if (roll < 54) {
      Word(rng, out);
      out.Push('-');
      Word(rng, out);
    } else if (roll < 62) {
      Word(rng, out);
      out.Append(rng.Below(4) == 0 ? "’s" : "'s");
    } else if (roll < 63) {
      const size_t w = out.size();
      Word(rng, out);
      out.UpperFrom(w);
    } else {
      Word(rng, out);
      if (rng.Below(14) == 0 && i + 1 < words) out.Push(rng.Below(6) == 0 ? ';' : ',');
    }
  }
  out.CapitalizeAt(start);
  const uint32_t end = rng.Below(100);
  out.Append(end < 84 ? "." : end < 90 ? "?" : end < 94 ? "!" : end < 97 ? ":" : "...");
  if (rng.Below(150) == 0) {
    out.Push(' ');
    Emoji(rng, out);
  }
}

void WebModel::Prose(Rng& rng, Out& out) const {
  for (uint32_t i = rng.Range(1, 7); i > 0; --i) {
    Sentence(rng, out);
    if (i > 1) out.Push(' ');
  }
}

void WebModel::List(Rng& rng, Out& out) const {
  const uint32_t style = rng.Below(3);
  const uint32_t items = rng.Range(2, 8);
  for (uint32_t i = 1; i <= items; ++i) {
    if (style == 0) {
      out.Append("- ");
    } else if (style == 1) {
      out.Append("* ");
    } else {
      out.Number(i);
      out.Append(". ");
    }
    const size_t start = out.size();
    for (uint32_t w = rng.Range(1, 8); w > 0; --w) {
      Word(rng, out);
      if (w > 1) out.Push(' ');
    }
    out.CapitalizeAt(start);
    if (i < items) out.Push('\n');
  }
}

void WebModel::Code(Rng& rng, Out& out) const {
  const bool fenced = rng.Below(2) == 0;
  if (fenced) out.Append(rng.Below(2) == 0 ? "```\n" : "```python\n");
  uint32_t indent = 0;
  for (uint32_t lines = rng.Range(2, 12); lines > 0; --lines) {
    for (uint32_t i = 0; i < indent; ++i) out.Append("    ");
    switch (rng.Below(8)) {
      case 0:
        Identifier(rng, out);
        out.Append(" = ");
        Identifier(rng, out);
        out.Push('(');
        Identifier(rng, out);
        out.Append(", ");
        out.Number(rng.Below(1000));
        out.Append(");");
        break;
      case 1:
        out.Append("if (");
        Identifier(rng, out);
        out.Append(rng.Below(2) == 0 ? " > " : " == ");
        out.Number(rng.Below(100));
        out.Append(") {");
        if (indent < 3) ++indent;
        break;
      case 2:
        out.Append("return ");
        Identifier(rng, out);
        out.Push('.');
        Identifier(rng, out);
        out.Append("();");
        if (indent > 0) --indent;
        break;
      case 3:
        out.Append("def ");
        Identifier(rng, out);
        out.Append("(self, ");
        Identifier(rng, out);
        out.Append("):");
        if (indent < 3) ++indent;
        break;
      case 4:
        out.Append("for i in range(");
        out.Number(rng.Below(256));
        out.Append("):");
        if (indent < 3) ++indent;
        break;
      case 5:
        out.Append("const ");
        Identifier(rng, out);
        out.Append(" = await ");
        Identifier(rng, out);
        out.Append(".get(\"/");
        Word(rng, out);
        out.Append("\");");
        break;
      case 6:
        out.Append("<div class=\"");
        Word(rng, out);
        out.Push('-');
        Word(rng, out);
        out.Append("\">");
        break;
      default:
        out.Append(rng.Below(2) == 0 ? "// " : "# ");
        for (uint32_t w = rng.Range(2, 8); w > 0; --w) {
          Word(rng, out);
          if (w > 1) out.Push(' ');
        }
        break;
    }
    out.Push('\n');
  }
  if (fenced) out.Append("```");
}

void WebModel::Foreign(Rng& rng, Out& out) const {
  const uint32_t script = rng.Below(20);
  if (script < 5) {  // CJK: no spaces, so every clause is one pre-token
    for (uint32_t clauses = rng.Range(1, 6); clauses > 0; --clauses) {
      for (uint32_t n = rng.Range(4, 24); n > 0; --n) out.Utf8(cjk_[cjk_dist_.Sample(rng)]);
      out.Append(clauses > 1 && rng.Below(2) == 0 ? "，" : "。");
    }
    return;
  }
  for (uint32_t sentences = rng.Range(1, 5); sentences > 0; --sentences) {
    for (uint32_t words = rng.Range(3, 16); words > 0; --words) {
      const uint64_t h = Mix64(foreign_dist_.Sample(rng) * 31 + script);
      if (script < 12) {
        cyrillic_.Append(h, 1 + static_cast<int>(h >> 62), out);
      } else if (script < 16) {
        greek_.Append(h, 1 + static_cast<int>(h >> 62), out);
      } else if (script < 19) {
        for (uint32_t n = 2 + static_cast<uint32_t>(h >> 61); n > 0; --n) {
          out.Utf8(arabic_letters_[(h >> (n * 5)) % arabic_letters_.size()]);
        }
      } else {
        Word(rng, out);
        out.Push(' ');
        Emoji(rng, out);
      }
      if (words > 1) out.Push(' ');
    }
    out.Append(script >= 16 && script < 19 ? "۔ " : ". ");
  }
}

void WebModel::Document(Rng& rng, Out& out) const {
  if (rng.Below(3) == 0) {  // a title in Title Case
    for (uint32_t w = rng.Range(2, 9); w > 0; --w) {
      const size_t start = out.size();
      Word(rng, out);
      out.CapitalizeAt(start);
      if (w > 1) out.Push(' ');
    }
    out.Append("\n\n");
  }
  for (uint32_t p = rng.Range(1, 16); p > 0; --p) {
    const uint32_t kind = rng.Below(100);
    if (kind < 88) {
      Prose(rng, out);
    } else if (kind < 93) {
      List(rng, out);
    } else if (kind < 96) {
      Code(rng, out);
    } else {
      Foreign(rng, out);
    }
    if (p > 1) out.Append(rng.Below(8) == 0 ? "\n" : "\n\n");
  }
  out.Append(kEndOfText);
}

const StoriesModel& Stories() {
  static const auto* model = new StoriesModel();
  return *model;
}
const WebModel& Web() {
  static const auto* model = new WebModel();
  return *model;
}

}  // namespace

absl::StatusOr<Flavor> ParseFlavor(absl::string_view name) {
  if (name == "stories") return Flavor::kStories;
  if (name == "web") return Flavor::kWeb;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown flavor '", name, "' (expected stories or web)"));
}

absl::string_view FlavorName(Flavor flavor) {
  return flavor == Flavor::kStories ? "stories" : "web";
}

absl::StatusOr<uint64_t> ParseSize(absl::string_view text) {
  absl::string_view digits = text;
  size_t n = 0;
  while (n < digits.size() && absl::ascii_isdigit(static_cast<unsigned char>(digits[n]))) ++n;
  absl::string_view suffix = digits.substr(n);
  digits = digits.substr(0, n);
  uint64_t value = 0;
  if (digits.empty() || !absl::SimpleAtoi(digits, &value)) {
    return absl::InvalidArgumentError(absl::StrCat("bad size '", text, "'"));
  }
  if (!suffix.empty() && (suffix.back() == 'B' || suffix.back() == 'b')) {
    suffix.remove_suffix(1);
  }
  uint64_t base = 1000;
  if (suffix.size() == 2 && (suffix[1] == 'i' || suffix[1] == 'I')) {
    base = 1024;
    suffix.remove_suffix(1);
  }
  int power = 0;
  if (suffix.size() == 1) {
    switch (absl::ascii_toupper(static_cast<unsigned char>(suffix[0]))) {
      case 'K':
        power = 1;
        break;
      case 'M':
        power = 2;
        break;
      case 'G':
        power = 3;
        break;
      case 'T':
        power = 4;
        break;
      default:
        return absl::InvalidArgumentError(absl::StrCat("bad size suffix in '", text, "'"));
    }
  } else if (!suffix.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("bad size suffix in '", text, "'"));
  }
  for (int i = 0; i < power; ++i) {
    if (value > std::numeric_limits<uint64_t>::max() / base) {
      return absl::InvalidArgumentError(absl::StrCat("size '", text, "' is too large"));
    }
    value *= base;
  }
  return value;
}

std::string GenerateBlock(Flavor flavor, uint64_t seed, uint64_t index) {
  Rng rng(Mix64(seed ^ 0x5EEDULL) ^ Mix64(index * 0x9E3779B97F4A7C15ULL + 1));
  // Room for the block plus the longest document, so the buffer never grows.
  Out out(kBlockBytes + (64 << 10));
  if (flavor == Flavor::kStories) {
    const StoriesModel& m = Stories();
    while (out.size() < kBlockBytes) m.Story(rng, out);
  } else {
    const WebModel& m = Web();
    while (out.size() < kBlockBytes) m.Document(rng, out);
  }
  return out.Take();
}

namespace {

// Emits `block` to `sink`, or its first `remaining` bytes cut at a character boundary and
// padded with '\n'; counts the bytes off *remaining.
absl::Status EmitBlock(const std::string& block, uint64_t* remaining,
                       absl::FunctionRef<absl::Status(absl::string_view)> sink) {
  if (block.size() <= *remaining) {
    *remaining -= block.size();
    return sink(block);
  }
  size_t cut = *remaining;
  while (cut > 0 && (static_cast<unsigned char>(block[cut]) & 0xC0) == 0x80) --cut;
  std::string last = block.substr(0, cut);
  last.append(*remaining - cut, '\n');
  *remaining = 0;
  return sink(last);
}

}  // namespace

absl::Status GenerateCorpus(const CorpusOptions& options,
                            absl::FunctionRef<absl::Status(absl::string_view)> sink) {
  uint64_t remaining = options.size;
  const int threads = std::max(1, options.threads);
  if (threads == 1) {
    for (uint64_t b = 0; remaining > 0; ++b) {
      absl::Status s = EmitBlock(GenerateBlock(options.flavor, options.seed, b), &remaining, sink);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // Workers claim block numbers in order and park finished blocks in a ring of slots; this
  // thread writes them in order. A worker waits while its slot still holds an unwritten block,
  // so at most `ring` blocks are in memory.
  const uint64_t ring = 2 * static_cast<uint64_t>(threads);
  struct SlotData {
    std::string data;
    uint64_t index = std::numeric_limits<uint64_t>::max();
  };
  std::vector<SlotData> slots(ring);
  std::mutex mu;
  std::condition_variable cv;
  uint64_t next_claim = 0;
  uint64_t written = 0;
  bool stop = false;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      std::unique_lock lock(mu);
      while (true) {
        const uint64_t b = next_claim++;
        cv.wait(lock, [&] { return stop || b < written + ring; });
        if (stop) return;
        lock.unlock();
        std::string data = GenerateBlock(options.flavor, options.seed, b);
        lock.lock();
        slots[b % ring] = {std::move(data), b};
        cv.notify_all();
      }
    });
  }
  absl::Status status;
  for (uint64_t b = 0; remaining > 0 && status.ok(); ++b) {
    std::string data;
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return slots[b % ring].index == b; });
      data = std::move(slots[b % ring].data);
      slots[b % ring].index = std::numeric_limits<uint64_t>::max();
      written = b + 1;
    }
    cv.notify_all();
    status = EmitBlock(data, &remaining, sink);
  }
  {
    std::lock_guard lock(mu);
    stop = true;
  }
  cv.notify_all();
  for (std::thread& w : workers) w.join();
  return status;
}

std::string GenerateCorpusString(const CorpusOptions& options) {
  std::string out;
  out.reserve(options.size);
  absl::Status s = GenerateCorpus(options, [&](absl::string_view piece) {
    out.append(piece.data(), piece.size());
    return absl::OkStatus();
  });
  (void)s;  // the sink never fails
  return out;
}

}  // namespace bpeforge::internal::bench
