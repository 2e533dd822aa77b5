// Placeholders (TranslatorOptions::repair_placeholders): their detection
// (placeholders.hpp) and the repair (repair_placeholders.hpp) on crafted and
// hostile text, and the shipped en-fr model keeping every placeholder.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "golden_util.hpp"
#include "text/placeholders.hpp"
#include "text/protect.hpp"
#include "text/repair_placeholders.hpp"
#include "shipped_model.hpp"

using namespace softalign;
using softalign::internal::find_placeholders;
using softalign::internal::placeholders_intact;
using softalign::internal::PlaceholderKind;

namespace {

using Strings = std::vector<std::string>;

Strings placeholders(std::string_view text) {
  Strings out;
  for (const auto& p : find_placeholders(text)) out.emplace_back(text.substr(p.bytes.begin, p.bytes.end - p.bytes.begin));
  return out;
}

std::string repair(std::string_view source, std::string_view output) {
  std::string r;
  internal::repair_placeholders(source, output, &r);
  return r;
}

// What the guarantee says, checked independently of the repair's own steps:
// the same multiset of placeholders, and tags nested when the source's are.
bool guaranteed(std::string_view source, std::string_view output) {
  Strings a = placeholders(source), b = placeholders(output);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a != b) return false;
  return placeholders_intact(source, output);
}

}  // namespace

TEST_CASE("placeholders: printf, Python, Qt formats") {
  CHECK(placeholders("cannot open \"%s\": %1$d") == Strings{"%s", "%1$d"});
  CHECK(placeholders("%-10.3f|%lld|%5.1f kB|%*d|%.*s|%zu") == Strings{"%-10.3f", "%lld", "%5.1f", "%*d", "%.*s", "%zu"});
  CHECK(placeholders("%(name)s and %(count)5d") == Strings{"%(name)s", "%(count)5d"});
  CHECK(placeholders("%1 of %2, %L3, %10") == Strings{"%1", "%2", "%L3", "%10"});
  CHECK(placeholders("%0.3g%% complete") == Strings{"%0.3g", "%%"});
  CHECK(placeholders("100% of width, 50 %") == Strings{});  // prose, no space flag
  CHECK(placeholders("%") == Strings{});
  CHECK(placeholders("ends with %") == Strings{});
  CHECK(placeholders("%%") == Strings{"%%"});
  CHECK(placeholders("%%%") == Strings{"%%"});
  CHECK(placeholders("%(unclosed s") == Strings{});
  CHECK(placeholders("%s%s%d") == Strings{"%s", "%s", "%d"});
}

TEST_CASE("placeholders: none inside a link") {
  CHECK(placeholders("Open https://example.com/search?q=caf%C3%A9 now").empty());
  CHECK(placeholders("ftp://h/%2F%20%41 and a@b%2Fc.org and /srv/%d/x").empty());
  CHECK(placeholders("see http://x.org/{id}, %s and %1") == Strings{"%s", "%1"});
  CHECK(placeholders("%d/%s/%d") == Strings{"%d", "%s", "%d"});
  CHECK(placeholders("<b>http://x.org/%20</b>") == Strings{"<b>", "</b>"});
  // The repair neither splits a link nor inserts its escapes.
  CHECK(repair("Go to http://x.org/a%20b now.", "Allez à http://x.org/a%20b maintenant.") ==
        "Allez à http://x.org/a%20b maintenant.");
}

TEST_CASE("repair: what the caller gave stays (glossary targets, the target prefix)") {
  internal::RepairGiven g;
  g.given = {"%s"};
  std::string r;
  CHECK_FALSE(internal::repair_placeholders("Could not save the file.", "Impossible d'enregistrer le %s.", &r, g));
  CHECK(repair("Could not save the file.", "Impossible d'enregistrer le %s.") == "Impossible d'enregistrer le .");
  // Each given placeholder once: a second copy goes.
  internal::repair_placeholders("Save the file.", "Enregistrer %s %s.", &r, g);
  CHECK(r == "Enregistrer %s .");
  // The prefix: its bytes never change, nothing is inserted before its end.
  internal::RepairGiven p;
  p.fixed_prefix = 5;
  CHECK_FALSE(internal::repair_placeholders("A simple editor.", "<b>Un éditeur simple.", &r, p));
  internal::repair_placeholders("%s is a simple editor.", "<b>Un éditeur simple.", &r, p);
  CHECK(r.rfind("<b>Un", 0) == 0);
  CHECK(r.find("%s") != std::string::npos);
  p.fixed_prefix = 8;
  internal::repair_placeholders("<i>a</i> b", "</i>x<i> b </i>", &r, p);
  CHECK(r.rfind("</i>x<i>", 0) == 0);
}

TEST_CASE("placeholders: braces") {
  CHECK(placeholders("The file '{0}' was renamed to '{1}'.") == Strings{"{0}", "{1}"});
  CHECK(placeholders("{count} of {total}, {}, {0:d}, {0, number, integer}") ==
        Strings{"{count}", "{total}", "{}", "{0:d}", "{0, number, integer}"});
  CHECK(placeholders("Hello {{ name }}!") == Strings{"{{ name }}"});
  // Braces inside braces: only the inner well-formed one.
  CHECK(placeholders("{a{b}c}") == Strings{"{b}"});
  CHECK(placeholders("{{{a}}}") == Strings{"{{a}}"});
  CHECK(placeholders("{ not one }, {unclosed, {") == Strings{});
  CHECK(placeholders(std::string(100, '{') + std::string(100, '}')).size() <= 1);
}

TEST_CASE("placeholders: markup and entities") {
  CHECK(placeholders("<b>Homepage:</b> <a href=\"%1\">%1</a><br/>") ==
        Strings{"<b>", "</b>", "<a href=\"%1\">", "%1", "</a>", "<br/>"});
  const auto p = find_placeholders("<b>x</b><br><img src=\"a\"><x/>");
  REQUIRE(p.size() == 5);
  CHECK(p[0].kind == PlaceholderKind::kTagOpen);
  CHECK(p[1].kind == PlaceholderKind::kTagClose);
  CHECK(p[2].kind == PlaceholderKind::kTagEmpty);
  CHECK(p[3].kind == PlaceholderKind::kTagEmpty);
  CHECK(p[4].kind == PlaceholderKind::kTagEmpty);
  CHECK(placeholders("Tom &amp; Jerry &#160; &#x2014; &Ctrl; & AT&T; &;") ==
        Strings{"&amp;", "&#160;", "&#x2014;", "&Ctrl;"});  // "&T;": a name of one letter is not one
  CHECK(placeholders("a < b > c, x<3, <1>, < b>") == Strings{});
  CHECK(placeholders("<chaîne> <é>") == Strings{"<chaîne>"});  // a name starts with an ASCII letter
  CHECK(placeholders("<unclosed attr=\"x\" <b>") == Strings{"<b>"});
}

TEST_CASE("placeholders are protected spans, a token cut at them") {
  auto spans = [](std::string_view text) {
    Strings out;
    for (const TextRange& r : internal::find_protected_spans(text)) out.emplace_back(text.substr(r.begin, r.end - r.begin));
    return out;
  };
  CHECK(spans("%s:%d: warning") == Strings{"%s", "%d"});
  CHECK(spans("i%d (%s) had errors") == Strings{"%d", "%s"});
  CHECK(spans("See <a href=\"http://x.org/a b\">the site</a> and libfoo-dev") ==
        Strings{"<a href=\"http://x.org/a b\">", "</a>", "libfoo-dev"});
  CHECK(spans("Use `%s` here") == Strings{"`%s`"});  // code stays whole
}

TEST_CASE("repair: exactly once, in place") {
  CHECK(repair("%1 database", "%1 base de données %1") == "%1 base de données");
  CHECK(repair("renamed \"%2\" to \"%3\"", "renommé « %2 » vers « %33 »") == "renommé « %2 » vers « %3 »");
  CHECK(repair("Error saving %s.", "Erreur lors de l'enregistrement.") == "Erreur lors de l'enregistrement %s.");
  CHECK(repair("%s: %d files", "%d fichiers") == "%s: %d fichiers");
  CHECK(repair("%s: %d files", "%s : %i fichiers") == "%s : %d fichiers");
  CHECK(repair("no placeholder", "pas %s de placeholder") == "pas de placeholder");
  CHECK(repair("%s and %s", "%s et") == "%s et %s");
  CHECK(repair("Saving %s", "Enregistrement de %s") == "Enregistrement de %s");
  CHECK_FALSE(internal::repair_placeholders("Saving %s", "Enregistrement de %s", nullptr));
}

TEST_CASE("repair: tags nested and ordered as in the source") {
  CHECK(repair("<b>bold</b> text", "</b>gras<b> texte") == "<b>gras</b> texte");
  CHECK(repair("<b>a <i>b</i></b>", "<b>a <i>b</b></i>") == "<b>a <i>b</i></b>");
  CHECK(repair("<b>a</b> <i>b</i>", "<i>b</i> <b>a</b>") == "<i>b</i> <b>a</b>");  // reordered siblings stay
  CHECK(repair("<b>a</b>", "a") == "<b>a</b>");
  CHECK(guaranteed("<b>a</b> and <i>b</i>", repair("<b>a</b> and <i>b</i>", "</i>a <b>b</i> </b>")));
  // Unbalanced in the source: unpaired tags are placeholders like the others.
  CHECK(repair("<b>open only", "ouvert seulement") == "<b>ouvert seulement");
  CHECK(repair("close only</b>", "</b></b>fermer") == "</b>fermer");
  CHECK(repair("<br/>x &amp; y", "x &amp;amp; y") == "<br/>x &amp;amp; y");
}

TEST_CASE("repair: hostile inputs never break the guarantee") {
  std::mt19937 rng(7);
  const std::vector<std::string> atoms = {"%s", "%d", "%1$s", "%(n)s", "%1", "%%", "%", "{0}", "{n}", "{", "}",
                                          "{{", "<b>", "</b>", "<i>", "</i>", "<br/>", "<", ">", "&amp;", "&",
                                          "é", "日本", " ", " ", "word", "mot", ".", "\"", "\n", "\xFF"};
  for (int round = 0; round < 3000; ++round) {
    std::string src, out;
    const int ns = static_cast<int>(rng() % 12), no = static_cast<int>(rng() % 12);
    for (int i = 0; i < ns; ++i) src += atoms[rng() % atoms.size()];
    for (int i = 0; i < no; ++i) out += atoms[rng() % atoms.size()];
    const std::string r = repair(src, out);
    INFO("source: " << src << "\noutput: " << out << "\nrepaired: " << r);
    REQUIRE(guaranteed(src, r));
    CHECK(placeholders_intact(src, repair(src, r)));  // idempotent
  }
}

TEST_CASE("repair: thousands of placeholders, linear-ish") {
  std::string src, out;
  for (int i = 0; i < 5000; ++i) src += "<b>%" + std::to_string(i % 99 + 1) + " {x} </b> &amp; ";
  for (int i = 0; i < 3000; ++i) out += "</b> mot %s {y} <b>";
  const std::string r = repair(src, out);
  CHECK(guaranteed(src, r));
  CHECK(internal::find_protected_spans(src).size() == 25000);
}

TEST_CASE("the shipped en-fr model keeps every placeholder") {
  const std::shared_ptr<const Model> model = golden::shipped_en_fr();
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(model, {}, &tr).ok());
  // Interface strings where the model alone drops, doubles or changes one.
  const std::vector<std::string> sources = {
      "%1 database",
      "%1 has renamed list \"%2\" to \"%3\"",
      "<b>Homepage:</b> <a href=\"%1\">%1</a>",
      "\"<strong>Bounces</strong>\" represent the <strong>subscribers whose address is in error</strong>.",
      "Appending track {0} from file no. {1} ('{2}') to track {3} from file no. {4} ('{5}').",
      "DISTribute <list> <key> * Moderation: to validate a message",
      "%-9s used soft hard grace used soft hard grace",
      "Downloading {count} of {total} packages (%(size)s, %1$d%%)",
      "Tom &amp; Jerry: <i>%s</i> &#160;<br/>",
  };
  bool any_repaired = false;
  for (const std::string& s : sources) {
    TranslationResult r;
    REQUIRE(tr->translate(s, &r).ok());
    INFO(s << " -> " << r.hypotheses[0].text);
    CHECK(guaranteed(s, r.hypotheses[0].text));
    any_repaired = any_repaired || r.hypotheses[0].placeholders_repaired;
  }
  CHECK(any_repaired);  // "%1 database" gives "%1 base de données %1" alone
  // Off: the flag still says it, the text is the model's (with copy-through).
  TranslatorOptions off;
  off.repair_placeholders = false;
  std::unique_ptr<Translator> raw;
  REQUIRE(Translator::prepare(model, off, &raw).ok());
  TranslationResult r;
  REQUIRE(raw->translate("%1 database", &r).ok());
  CHECK(r.hypotheses[0].placeholders_repaired);
}

TEST_CASE("the shipped en-fr model keeps a target prefix as given: tags, formats, braces, special pieces") {
  const std::shared_ptr<const Model> model = golden::shipped_en_fr();
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(model, {}, &tr).ok());
  for (const char* prefix : {"<b>Un", "Le %s", "<unk>", "Un <i>", "{x} et", "&amp; le", "</b> Le"}) {
    for (const char* source : {"A simple text editor.", "Save %s to <b>disk</b>.", "See http://x.org/%20 now."}) {
      SearchOptions so;
      so.target_prefix = prefix;
      for (int beam : {1, 4}) {
        so.beam_size = beam;
        so.nbest = beam == 4 ? 2 : 1;
        TranslationResult r;
        REQUIRE(tr->translate(source, so, &r).ok());
        for (const Hypothesis& h : r.hypotheses) {
          CHECK_MESSAGE(h.text.rfind(prefix, 0) == 0, prefix, " + ", source, " -> ", h.text);
          // The source's placeholders are all there too.
          for (const std::string& p : placeholders(source))
            CHECK_MESSAGE(h.text.find(p) != std::string::npos, prefix, " + ", source, " -> ", h.text);
        }
      }
    }
  }
}
