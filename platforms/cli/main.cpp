// softalign: translate with a .softalign model from the command line.
//
//   softalign translate -m MODEL [options] [SENTENCE...]
//   softalign info MODEL
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "softalign/text.hpp"
#include "softalign/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"softalign: offline translation with attention RNN models (Bahdanau 2014, Luong 2015)",
               "softalign"};
  app.set_version_flag("--version", std::string("softalign ") + softalign::version());
  app.require_subcommand(1);
  auto translate = softalign::cli::add_translate_command(app);
  auto info = softalign::cli::add_info_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, like every other error; exit status 2 for a usage error.
    std::cerr << "softalign: error: " << softalign::escape_controls(e.what()) << " (see --help)\n";
    return 2;
  }
  try {
    if (app.got_subcommand("translate")) return translate();
    if (app.got_subcommand("info")) return info();
  } catch (const std::exception& e) {
    std::cerr << "softalign: error: " << softalign::escape_controls(e.what()) << "\n";
  } catch (...) {
    std::cerr << "softalign: error: unexpected exception\n";
  }
  return 1;
}
