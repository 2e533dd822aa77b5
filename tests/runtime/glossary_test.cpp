// Glossaries (TranslatorOptions::glossary): the TSV reader and the rule of
// what prepare takes on good and bad input, matching (word boundaries, the
// first letter's case, longest match), the guarantee on random-weight golden
// models (whatever they write, every term's target is there), and the
// shipped en-fr model with terms it translates otherwise.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "text/copy_through.hpp"
#include "text/glossary_index.hpp"
#include "golden_util.hpp"
#include "softalign/softalign.hpp"

using namespace softalign;

namespace {

// Each match of `terms` in `text`: "source text=target".
std::vector<std::string> matches(const std::vector<GlossaryTerm>& terms, std::string_view text) {
  REQUIRE(check_glossary(terms).ok());
  const internal::GlossaryIndex index(terms);
  std::vector<std::string> out;
  for (const internal::TermMatch& m : index.find(text))
    out.push_back(std::string(text.substr(m.bytes.begin, m.bytes.end - m.bytes.begin)) + "=" +
                  index.target(m.term));
  return out;
}

using Strings = std::vector<std::string>;

// How many times `needle` occurs in `hay` (overlaps not counted).
std::size_t count(std::string_view hay, std::string_view needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string_view::npos; at = hay.find(needle, at + needle.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("glossary TSV: terms, comments, blank lines, CRLF, spaces around fields") {
  std::vector<GlossaryTerm> t;
  REQUIRE(parse_glossary_tsv("# product terms\nSave\tEnregistrer\r\n\n  Home Assistant \t Home Assistant\n", &t).ok());
  REQUIRE(t.size() == 2);
  CHECK(t[0].source == "Save");
  CHECK(t[0].target == "Enregistrer");
  CHECK(t[1].source == "Home Assistant");
  CHECK(t[1].target == "Home Assistant");
  // Appends; the same term twice with the same target is taken.
  REQUIRE(parse_glossary_tsv("save\tEnregistrer", &t).ok());
  CHECK(t.size() == 3);
}

TEST_CASE("glossary TSV and check_glossary: each bad input is refused with its line") {
  auto error = [](std::string_view tsv) {
    std::vector<GlossaryTerm> t{{"keep", "garder"}};
    const Status st = parse_glossary_tsv(tsv, &t);
    CHECK(st.code() == StatusCode::kInvalidArgument);
    CHECK(t.size() == 1);  // nothing appended on failure
    return st.message();
  };
  CHECK(error("a\tb\nno tab here\n").find("line 2") != std::string::npos);
  CHECK(error("a\tb\tc\n").find("one tab") != std::string::npos);
  CHECK(error("\tcible\n").find("source is empty") != std::string::npos);
  CHECK(error("source\t \n").find("target is empty") != std::string::npos);
  // A line of a tab alone, or blanks and a tab, is a term line with empty fields.
  CHECK(error("a\tb\n\t\n").find("line 2: source is empty") != std::string::npos);
  CHECK(error("  \t \n").find("line 1: source is empty") != std::string::npos);
  CHECK(error("bad \xff byte\tx\n").find("UTF-8") != std::string::npos);
  CHECK(error("a\x01z\tx\n").find("control") != std::string::npos);
  CHECK(error(std::string(300, 'a') + "\tx\n").find("at most 256") != std::string::npos);
  CHECK(error("Keep\tconserver\n").find("another target") != std::string::npos);  // "keep" -> "garder" already
  CHECK(check_glossary({{" lead", "x"}}).code() == StatusCode::kInvalidArgument);
  CHECK(check_glossary({{"a\nb", "x"}}).code() == StatusCode::kInvalidArgument);
  CHECK(check_glossary({}).ok());
  std::vector<GlossaryTerm> many(GlossaryLimits::kMaxTerms + 1, {"a", "b"});
  CHECK(check_glossary(many).code() == StatusCode::kInvalidArgument);
  // Translator::prepare applies the same rule.
  std::shared_ptr<const Model> m;
  REQUIRE(Model::load(golden::model_path("bahdanau", "f32").string(), &m).ok());
  TranslatorOptions o;
  o.glossary = {{"file", "fichier"}, {"File", "dossier"}};
  std::unique_ptr<Translator> tr;
  const Status st = Translator::prepare(m, o, &tr);
  CHECK(st.code() == StatusCode::kInvalidArgument);
  CHECK(st.message().find("term 2") != std::string::npos);
}

TEST_CASE("glossary matching: whole words, the first letter's case, the longest term first") {
  const std::vector<GlossaryTerm> g = {{"save", "enregistrer"}, {"Home Assistant", "Home Assistant"},
                                       {"package", "paquet"},  {"package manager", "gestionnaire de paquets"},
                                       {"C++", "C++"},          {"école", "school"}};
  CHECK(matches(g, "Save the file, then save it.") == Strings{"Save=enregistrer", "save=enregistrer"});
  CHECK(matches(g, "Saved, unsaved, saves, save_as, save2") == Strings{});
  CHECK(matches(g, "the package manager and a package") ==
        Strings{"package manager=gestionnaire de paquets", "package=paquet"});
  CHECK(matches(g, "home Assistant, home assistant, HOME ASSISTANT") == Strings{"home Assistant=Home Assistant"});
  CHECK(matches(g, "C++ and C++11, (C++)") == Strings{"C++=C++", "C++=C++", "C++=C++"});
  CHECK(matches(g, "École, écoles, l'école, «école»") == Strings{"École=school", "école=school", "école=school"});
  CHECK(matches(g, "packageécole") == Strings{});       // a non-ASCII letter joins words
  CHECK(matches(g, "package…save") == Strings{"package=paquet", "save=enregistrer"});  // punctuation does not
  CHECK(matches(g, "") == Strings{});
  // Hostile text: any valid UTF-8, long, repetitive; linear enough to finish at once.
  std::string big;
  for (int i = 0; i < 20000; ++i) big += i % 3 ? "package manage " : "packag ";
  CHECK(matches(g, big).size() == 13333);
}

TEST_CASE("glossary: what counts as the target term in an output, and a hyphenated word's last part replaced") {
  using internal::count_term;
  CHECK(count_term("Speichern Sie die Datei.", "Datei") == 1);
  CHECK(count_term("Datei-Manager und datei", "Datei") == 2);        // a hyphenated compound's first part; small letter
  CHECK(count_term("die Rasterbibliothek", "Bibliothek") == 1);      // the end of a compound (5 bytes or more)
  CHECK(count_term("von einigen Paketen", "Pakete") == 1);           // an ending of one or two small letters
  CHECK(count_term("les fichiers", "fichier") == 1);
  CHECK(count_term("Benutzern-Listen", "Benutzer") == 1);            // ... before a hyphen too
  CHECK(count_term("die Clientbibliothek", "Client") == 1);          // a closed compound's head (4 letters or more after)
  CHECK(count_term("Paketeabc", "Pakete") == 0);                     // three letters: neither
  CHECK(count_term("wieder", "wie") == 0);                           // a target under 4 bytes takes no ending
  CHECK(count_term("un Enregistrement", "Enregistrer") == 0);
  CHECK(count_term("Datei2", "Datei") == 0);
  CHECK(count_term("Dateiä", "Datei") == 0);
  // Replacing: only the last part of a hyphenated word for a one-word target.
  CHECK(internal::term_replacement("Archiv-Plugin", "Erweiterung", ' ', ' ', false) == "Archiv-Erweiterung");
  CHECK(internal::term_replacement("GNOME-Arbeitsumgebung", "Desktop", ' ', ' ', true) == "GNOME-Desktop");
  CHECK(internal::term_replacement("Plugin", "Erweiterung", ' ', ' ', false) == "Erweiterung");
  CHECK(internal::term_replacement("Archiv-Plugin", "module externe", ' ', ' ', false) == "module externe");
}

TEST_CASE("glossary guarantee: every term's target in every hypothesis, whatever the model writes") {
  // Random-weight golden models write nonsense: every term goes through
  // replacement or insertion.
  std::mt19937 rng(11);
  const std::vector<std::string> words = {"save", "the", "file", "Home Assistant", "package manager", "%s", "dh_foo",
                                          "http://a.org/x", "l'", "-", ".", "é", "tests", "Save"};
  const std::vector<GlossaryTerm> g = {{"save", "enregistrer"}, {"Home Assistant", "Home Assistant"},
                                       {"package manager", "gestionnaire de paquets"}, {"file", "fichier"}};
  for (const char* name : {"bahdanau", "luong_dot", "luong_local_p", "bahdanau_shared"}) {
    std::shared_ptr<const Model> m;
    REQUIRE(Model::load(golden::model_path(name, "f32").string(), &m).ok());
    for (bool copy : {true, false}) {
      TranslatorOptions o;
      o.search.beam_size = 3;
      o.search.nbest = 3;
      o.copy_through = copy;
      o.glossary = g;
      std::unique_ptr<Translator> tr;
      REQUIRE(Translator::prepare(m, o, &tr).ok());
      for (int round = 0; round < 40; ++round) {
        std::string text;
        for (std::size_t n = 1 + rng() % 8; n > 0; --n) text += words[rng() % words.size()] + " ";
        TranslationResult r;
        const Status st = tr->translate(text, &r);
        REQUIRE_MESSAGE(st.ok(), st.to_string());
        const std::vector<internal::TermMatch> found = internal::GlossaryIndex(g).find(text);
        REQUIRE(r.glossary_matches.size() == found.size());
        for (const Hypothesis& h : r.hypotheses)
          for (const GlossaryTerm& t : g) {
            std::size_t wanted = 0;
            for (const internal::TermMatch& f : found) wanted += g[static_cast<std::size_t>(f.term)].target == t.target;
            const std::size_t got = count(h.text, t.target) + count(h.text, internal::capitalise_first_letter(t.target));
            CHECK_MESSAGE(got >= wanted, name, ": '", text, "' -> '", h.text, "'");
          }
      }
    }
  }
}

TEST_CASE("the shipped en-fr model follows a glossary with terms it translates otherwise") {
  const auto path = golden::source_dir() / ".." / ".." / "models" / "en-fr" / "en-fr.int8.softalign";
  std::shared_ptr<const Model> m;
  REQUIRE(Model::load(path.string(), &m).ok());
  std::unique_ptr<Translator> plain, with;
  REQUIRE(Translator::prepare(m, TranslatorOptions(), &plain).ok());
  TranslatorOptions o;
  o.glossary = {{"save", "sauvegarder"}, {"file", "dossier"}, {"Home Assistant", "Home Assistant"}};
  REQUIRE(Translator::prepare(m, o, &with).ok());
  struct Case {
    const char* source;
    std::vector<const char*> must;  // in the glossary's output
  };
  for (const Case& c : std::vector<Case>{{"Save the file.", {"Sauvegarder", "dossier"}},
                                         {"Could not save the file to disk.", {"sauvegarder", "dossier"}},
                                         {"Home Assistant could not start.", {"Home Assistant"}}}) {
    TranslationResult a, b;
    REQUIRE(plain->translate(c.source, &a).ok());
    REQUIRE(with->translate(c.source, &b).ok());
    for (const char* w : c.must) {
      CHECK_MESSAGE(b.hypotheses[0].text.find(w) != std::string::npos, c.source, " -> ", b.hypotheses[0].text);
    }
    MESSAGE(std::string(c.source), " -> ", a.hypotheses[0].text, " | with the glossary: ", b.hypotheses[0].text);
  }
}

TEST_CASE("a glossary target that looks like a placeholder stays: the repair keeps what the glossary put in") {
  const auto path = golden::source_dir() / ".." / ".." / "models" / "en-fr" / "en-fr.int8.softalign";
  std::shared_ptr<const Model> m;
  REQUIRE(Model::load(path.string(), &m).ok());
  for (const char* target : {"%s", "<b>fichier</b>", "{file}", "&amp;"}) {
    TranslatorOptions o;
    o.glossary = {{"file", target}};
    std::unique_ptr<Translator> tr;
    REQUIRE(Translator::prepare(m, o, &tr).ok());
    for (const char* source : {"Could not save the file to disk.", "Save %s to the file."}) {
      TranslationResult r;
      REQUIRE(tr->translate(source, &r).ok());
      const std::string& text = r.hypotheses.at(0).text;
      CHECK_MESSAGE(text.find(target) != std::string::npos, source, " -> ", text);
      if (std::string_view(source).find("%s") != std::string_view::npos && std::string_view(target) != "%s")
        CHECK_MESSAGE(text.find("%s") != std::string::npos, source, " -> ", text);  // the source's own, still
    }
  }
}
