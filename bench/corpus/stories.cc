#include "bench/corpus/stories.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/corpus/story_templates.h"

namespace bpeforge::internal::bench {
namespace {

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

  openings_ = CompileAll(kStoryTemplates.openings, &literals_);
  narration_ = CompileAll(kStoryTemplates.narration, &literals_);
  dialogue_ = CompileAll(kStoryTemplates.dialogue, &literals_);
  endings_ = CompileAll(kStoryTemplates.endings, &literals_);
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

}  // namespace

void WriteStory(Rng& rng, Out& out) {
  static const auto* model = new StoriesModel();
  model->Story(rng, out);
}

}  // namespace bpeforge::internal::bench
